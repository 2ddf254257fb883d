"""The calls: a retriever function run over a set, and the binary's score
and compare read back as dataclasses."""
from __future__ import annotations

import inspect
import json
import math
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence

from ._binary import EvalsetError, call
from ._types import AddResult, Answer, Comparison, Question, Run, Score

__all__ = ["questions", "run", "score", "compare", "add_testset"]

PathLike = Any  # str or os.PathLike


def questions(set_ref: str, *, cwd: Optional[PathLike] = None) -> List[Question]:
    """Return the questions of ``set_ref`` (``name``, ``name@tag`` or a path),
    in set order, as the binary lists them (``evalset ls --format json``)."""
    p = call(["ls", set_ref, "--format", "json"], cwd=cwd)
    return [Question.from_json(d) for d in json.loads(p.stdout)]


_PASSED = ("k", "id", "qid", "tags", "history", "question")


def _keywords(fn: Callable) -> Sequence[str]:
    """The keyword arguments among _PASSED that ``fn`` accepts (all of them
    when it takes ``**kwargs``)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return ()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return tuple(n for n in _PASSED if n != "qid")
    return tuple(n for n in _PASSED if n in params and
                 params[n].kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    inspect.Parameter.KEYWORD_ONLY))


def _result(item: Any) -> Any:
    """One result as the run format has it: an id string or {"id", "score"}."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        out = {"id": item.get("id")}
        if item.get("score") is not None:
            out["score"] = float(item["score"])
        return out
    if isinstance(item, (tuple, list)) and len(item) == 2:
        return {"id": item[0], "score": float(item[1])}
    raise TypeError(f"a result must be an id, an (id, score) pair or a dict with an id, "
                    f"not {type(item).__name__}")


def _answer_line(q: Question, fn: Callable, kw: Sequence[str], k: int) -> Dict[str, Any]:
    args = {"k": k, "id": q.id, "qid": q.id, "tags": list(q.tags), "history": q.history,
            "question": q}
    t0 = time.perf_counter()
    try:
        got = fn(q.text, **{n: args[n] for n in kw})
        abstained = False
        if isinstance(got, Answer):
            got, abstained = got.results, got.abstained
        results = [_result(r) for r in (got or [])]
    except Exception as e:  # the retriever's failure is the question's, recorded
        return {"qid": q.id, "error": f"{type(e).__name__}: {e}".strip()[:2000]}
    ms = (time.perf_counter() - t0) * 1000.0
    line = {"qid": q.id, "results": results, "latency_ms": round(ms, 3)}
    if abstained:
        line["abstained"] = True
    return line


def _describe(fn: Callable) -> str:
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    mod = getattr(fn, "__module__", None)
    return f"python {mod}.{name}" if mod else f"python {name}"


def run(set_ref: str, retriever: Callable, k: int = 100, concurrency: int = 8, *,
        output: Optional[PathLike] = None, name: Optional[str] = None,
        corpus: Optional[PathLike] = None, cwd: Optional[PathLike] = None) -> Run:
    """Call ``retriever`` for every question of ``set_ref`` and write the run.

    ``retriever(text, ...)`` gets the question's text, and as keywords those
    of ``k``, ``id`` (or ``qid``), ``tags``, ``history`` and ``question`` (the
    Question) that its signature names (all with ``**kwargs``). It returns
    the ranked results: ids, ``(id, score)`` pairs or ``{"id", "score"}``
    dicts, best first (``[]`` or None: nothing found, a decline), or an
    ``Answer(results, abstained=True)``. Questions are asked in a thread pool
    of ``concurrency`` workers; each one's time and any exception are
    recorded. The binary checks the answers and writes the run file
    (``output``, else a new temporary file) exactly as ``evalset run --cmd``
    would: the same meta line (set version, digests, the ``corpus`` record
    when given) and checks. A question whose call raised, or whose answer
    the binary refused, is left out of the file (missing, so ``compare``'s
    coverage rule sees it) and listed in ``Run.errors`` / ``Run.messages``.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    qs = questions(set_ref, cwd=cwd)
    kw = _keywords(retriever)
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        lines = list(pool.map(lambda q: _answer_line(q, retriever, kw, k), qs))
    base = os.fspath(cwd) if cwd else os.getcwd()
    if output is None:
        fd, out_path = tempfile.mkstemp(prefix="evalset-run-", suffix=".jsonl")
        os.close(fd)
    else:
        out_path = os.path.join(base, os.fspath(output))
    fd, answers = tempfile.mkstemp(prefix=".answers-", suffix=".jsonl",
                                   dir=os.path.dirname(os.path.abspath(out_path)))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(line, ensure_ascii=False, allow_nan=False) + "\n")
        desc = name or _describe(retriever)
        args = ["run", set_ref, "--answers", answers, "--retriever", desc, "-k", str(k),
                "-o", out_path]
        if corpus is not None:
            args += ["--corpus", os.fspath(corpus)]
        p = call(args, ok=(0, 3), cwd=cwd)
    finally:
        os.unlink(answers)
    with open(out_path, encoding="utf-8") as f:
        meta = json.loads(f.readline())["meta"]
    errors = {l["qid"]: l["error"] for l in lines if "error" in l}
    refused = [m[len("error: "):] for m in p.stderr.splitlines()
               if m.startswith("error: ") and "bad answer to" in m]
    return Run(path=out_path, set=set_ref, retriever=desc, k=k, questions=meta["questions"],
               answered=meta["answered"], complete=meta["complete"], errors=errors,
               latency_ms={l["qid"]: l["latency_ms"] for l in lines if "latency_ms" in l},
               messages=refused, meta=meta)


def _opt(args: List[str], flag: str, value: Any) -> None:
    if value is not None and value is not False:
        args.append(flag)
        if value is not True:
            args.append(os.fspath(value) if not isinstance(value, (int, float)) else str(value))


def score(set_ref: str, run: Any, measures: Sequence[str] = (), *, k: Optional[int] = None,
          depth: Optional[int] = None, by: Optional[str] = None,
          decline_below: Optional[float] = None, judged_only: bool = False,
          rank_by: Optional[str] = None, save: Optional[PathLike] = None,
          corpus: Optional[PathLike] = None, cwd: Optional[PathLike] = None) -> Score:
    """Score ``run`` (a path, or a Run) on ``set_ref`` with ``evalset score``
    and return its JSON as a Score. ``by`` is "tag", "origin" or both
    ("origin,tag"); ``save`` also writes the results file compare reads."""
    args = ["score", set_ref, os.fspath(getattr(run, "path", run)), "--format", "json"]
    for m in measures:
        args += ["-m", m]
    _opt(args, "--k", k)
    _opt(args, "--depth", depth)
    _opt(args, "--by", by)
    _opt(args, "--decline-below", decline_below)
    _opt(args, "--judged-only", judged_only)
    _opt(args, "--rank-by", rank_by)
    _opt(args, "--save", save)
    _opt(args, "--corpus", corpus)
    return Score.from_json(json.loads(call(args, cwd=cwd).stdout))


def compare(set_ref: str, baseline: Any, candidate: Any, *, gate: Optional[PathLike] = None,
            k: Optional[int] = None, measures: Sequence[str] = (),
            markdown: Optional[PathLike] = None, junit: Optional[PathLike] = None,
            show: Optional[int] = None, seed: Optional[int] = None, subsets: bool = False,
            allow_set_change: bool = False, cwd: Optional[PathLike] = None) -> Comparison:
    """Compare ``candidate`` with ``baseline`` (run or results paths, or Runs;
    a list for several runs of one system) on ``set_ref`` (``name@tag``)
    under ``gate`` with ``evalset compare``, and return its JSON as a
    Comparison. A failed gate is a result (``passed`` False), not an error;
    ``markdown`` and ``junit`` are written by the binary as with
    ``compare --markdown/--junit``."""
    def paths(side: Any) -> List[str]:
        items = side if isinstance(side, (list, tuple)) else [side]
        return [os.fspath(getattr(s, "path", s)) for s in items]

    args = ["compare", set_ref]
    for b in paths(baseline):
        args += ["--baseline", b]
    for c in paths(candidate):
        args += ["--candidate", c]
    args += ["--format", "json"]
    for m in measures:
        args += ["-m", m]
    _opt(args, "--gate", gate)
    _opt(args, "--k", k)
    _opt(args, "--markdown", markdown)
    _opt(args, "--junit", junit)
    _opt(args, "--show", show)
    _opt(args, "--seed", seed)
    _opt(args, "--subsets", subsets)
    _opt(args, "--allow-set-change", allow_set_change)
    return Comparison.from_json(json.loads(call(args, ok=(0, 1), cwd=cwd).stdout))


_TOOLS = ("ragas", "deepeval", "llamaindex", "hf")


def add_testset(set_ref: str, path: PathLike, tool: str, *, tags: Sequence[str] = (),
                origin: Optional[str] = None, cwd: Optional[PathLike] = None,
                fields: Optional[Dict[str, str]] = None) -> AddResult:
    """Add the test set ``path`` made by ``tool`` ("ragas": a Testset as JSONL
    or a JSON list; "deepeval": goldens as a JSON list or JSONL;
    "llamaindex": an EmbeddingQAFinetuneDataset JSON; "hf": JSON lines whose
    columns ``fields`` names, {"question": ..., "contexts": ..., "chunks": ...,
    "answer": ..., "id": ...}) to the working copy
    of ``set_ref`` with ``evalset add --from-TOOL``: the binary reads it and
    finds each context text in the set's corpus. Returns the ids added and
    the binary's list of contexts (and questions) it could not place."""
    if tool not in _TOOLS:
        raise ValueError(f"tool must be one of {', '.join(_TOOLS)}, not {tool!r}")
    args = ["add", set_ref, f"--from-{tool}", os.fspath(path)]
    if (fields is not None) != (tool == "hf"):
        raise ValueError('fields go with tool "hf" (and "hf" needs them)')
    for k, v in (fields or {}).items():
        args += [f"--{k}-field", v]
    for t in tags:
        args += ["--tag", t]
    _opt(args, "--origin", origin)
    p = call(args, cwd=cwd)
    added = [l.split()[1] for l in p.stdout.splitlines() if l.startswith("added ")]
    unresolved = [l[len("warning: "):] for l in p.stderr.splitlines() if l.startswith("warning: ")]
    return AddResult(added=added, unresolved=unresolved,
                     summary=next((l[len("note: "):] for l in p.stderr.splitlines()
                                   if l.startswith("note: ") and "contexts found" in l), ""))
