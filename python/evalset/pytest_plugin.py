"""The pytest plugin (entry point ``pytest11``): a retrieval gate as a test.

    @pytest.mark.evalset(set="support@v3", baseline="tests/baselines/main.jsonl",
                         gate="gate.yaml", k=100)
    def test_retrieval(evalset_gate):
        evalset_gate(my_retriever)

``evalset_gate(retriever, **overrides)`` runs the retriever on the set
(``evalset.run``), compares the run with the committed baseline under the
gate (``evalset.compare``) and fails the test with the gate's verdict, every
rule's line and the questions lost. ``--evalset-update-baseline`` writes the
baseline from the retriever instead (on purpose, after a reviewed change).
Paths are relative to pytest's rootdir. Each comparison's Markdown summary
and JUnit XML are the binary's (``compare --markdown/--junit``).
"""
from __future__ import annotations

import os
import re
import shutil
from typing import Any, Callable, Optional

import pytest

from . import _api

_MARKER_KEYS = ("set", "baseline", "gate", "k", "concurrency", "corpus", "name", "compare_k",
                "show")


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("evalset", "evalset retrieval gates")
    group.addoption("--evalset-update-baseline", action="store_true", default=False,
                    help="write each evalset gate's baseline from its retriever instead of "
                         "comparing (a deliberate change of the baseline)")
    group.addoption("--evalset-markdown", metavar="FILE", default=None,
                    help="append each comparison's Markdown summary (compare --markdown) to FILE "
                         "(default: $GITHUB_STEP_SUMMARY when set)")
    group.addoption("--evalset-junit", metavar="DIR", default=None,
                    help="write each comparison's JUnit XML (compare --junit) to DIR/<test>.xml")


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers",
        "evalset(set, baseline, gate=None, k=100, concurrency=8, corpus=None, name=None, "
        "compare_k=None, show=10): the retrieval gate the evalset_gate fixture applies")


class Gate:
    """The ``evalset_gate`` fixture's value: call it with the retriever."""

    def __init__(self, request: Any, tmp_path: Any):
        self._request = request
        self._tmp = tmp_path

    def _options(self, overrides: dict) -> dict:
        marker = self._request.node.get_closest_marker("evalset")
        opts = dict(marker.kwargs) if marker else {}
        opts.update({k: v for k, v in overrides.items() if v is not None})
        unknown = set(opts) - set(_MARKER_KEYS)
        if unknown:
            raise pytest.UsageError(f"evalset gate: unknown option(s) {sorted(unknown)}; "
                                    f"known: {', '.join(_MARKER_KEYS)}")
        for need in ("set", "baseline"):
            if not opts.get(need):
                raise pytest.UsageError(f"evalset gate: no '{need}' (give it to "
                                        f"@pytest.mark.evalset or to evalset_gate)")
        return opts

    def __call__(self, retriever: Callable, **overrides: Any):
        config = self._request.config
        root = str(config.rootpath)
        o = self._options(overrides)
        baseline = os.path.join(root, os.fspath(o["baseline"]))
        run = _api.run(o["set"], retriever, k=o.get("k", 100),
                       concurrency=o.get("concurrency", 8), output=self._tmp / "candidate.jsonl",
                       name=o.get("name"), corpus=o.get("corpus"), cwd=root)
        if config.getoption("evalset_update_baseline"):
            if not run.complete:
                pytest.fail(f"not writing the baseline '{o['baseline']}': the retriever answered "
                            f"{run.answered} of {run.questions} questions "
                            f"({len(run.errors)} raised: {_first(run.errors)})", pytrace=False)
            os.makedirs(os.path.dirname(baseline) or ".", exist_ok=True)
            shutil.copyfile(run.path, baseline)
            return run
        if not os.path.exists(baseline):
            pytest.fail(f"no baseline '{o['baseline']}': write it from this retriever with "
                        f"pytest --evalset-update-baseline, and commit it", pytrace=False)
        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", self._request.node.nodeid).strip("_")
        junit_dir = config.getoption("evalset_junit")
        junit = os.path.join(junit_dir, stem + ".xml") if junit_dir else self._tmp / "gate.xml"
        if junit_dir:
            os.makedirs(junit_dir, exist_ok=True)
        md = self._tmp / "gate.md"
        gate = o.get("gate")
        cmp = _api.compare(o["set"], baseline, run,
                           gate=os.path.join(root, os.fspath(gate)) if gate else None,
                           k=o.get("compare_k"), markdown=md, junit=junit, cwd=root)
        summary = config.getoption("evalset_markdown") or os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            with open(md, encoding="utf-8") as f, open(summary, "a", encoding="utf-8") as out:
                out.write(f.read() + "\n")
        if not cmp.passed:
            text = cmp.summary(show=o.get("show", 10))
            if run.errors:
                text += (f"\nthe retriever raised on {len(run.errors)} question"
                         f"{'s' if len(run.errors) != 1 else ''}: {_first(run.errors)}")
            pytest.fail(text, pytrace=False)
        return cmp


def _first(errors: dict, n: int = 3) -> str:
    items = list(errors.items())
    s = "; ".join(f"{q}: {e}" for q, e in items[:n])
    return s + (f"; ... and {len(items) - n} more" if len(items) > n else "")


@pytest.fixture
def evalset_gate(request: Any, tmp_path: Any) -> Gate:
    """Run a retriever function on the set of ``@pytest.mark.evalset`` and
    fail the test when the gate fails against the committed baseline."""
    return Gate(request, tmp_path)
