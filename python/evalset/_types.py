"""Typed views of the binary's JSON output (``--format json``): nothing here
computes a measure or a statistic, every value is the binary's. Each object
keeps the whole JSON it was built from in ``raw``."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


@dataclass
class Question:
    """A question of a set version as ``evalset ls --format json`` gives it.
    ``history`` is the conversation before the question when the set has one
    (evalset sets have none yet, so it is None)."""
    id: str
    text: str
    origin: Optional[str] = None
    answerable: bool = True
    tags: List[str] = field(default_factory=list)
    history: Optional[List[Dict[str, str]]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Question":
        return cls(id=d["id"], text=d["text"], origin=d.get("origin"),
                   answerable=d.get("answerable", True), tags=list(d.get("tags") or []),
                   history=d.get("history"), raw=d)


@dataclass
class Answer:
    """What a retriever function may return when it wants to abstain (say
    "I don't know") while still listing results, or to be explicit:
    ``results`` as for a plain return value."""
    results: List[Any] = field(default_factory=list)
    abstained: bool = False


@dataclass
class Run:
    """A run file written by ``evalset.run``: its ``path`` (JSONL, exactly as
    ``evalset run`` writes it), how many questions were ``answered`` of
    ``questions``, and per question the ``errors`` the retriever raised
    (question id -> "ExceptionType: message") and its ``latency_ms``.
    ``messages`` holds what the binary said about refused answers."""
    path: str
    set: str
    retriever: str
    k: int
    questions: int
    answered: int
    complete: bool
    errors: Dict[str, str] = field(default_factory=dict)
    latency_ms: Dict[str, float] = field(default_factory=dict, repr=False)
    messages: List[str] = field(default_factory=list)
    meta: Dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass
class QuestionScore:
    """One question's values (``values``: measure -> value) and ranks."""
    id: str
    text: Optional[str]
    answerable: bool
    tags: List[str]
    missing: bool
    declined: bool
    values: Dict[str, float]
    rel_ranks: List[Any]
    raw: Dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "QuestionScore":
        return cls(id=d["id"], text=d.get("text"), answerable=d.get("answerable", True),
                   tags=list(d.get("tags") or []), missing=d.get("missing", False),
                   declined=d.get("declined", False), values=dict(d.get("values") or {}),
                   rel_ranks=list(d.get("rel_ranks") or []), raw=d)


@dataclass
class Score:
    """``evalset score --format json``: the means over the answerable
    questions (``aggregate``), Decline and FalseDecline (``decline``), the
    per-question values, and with ``by`` the means per subset (``subsets``:
    "tag=hard" -> {"n": .., measure: mean})."""
    set: str
    version: Optional[str]
    digest: str
    run: str
    k: int
    depth: int
    measures: List[str]
    aggregate: Dict[str, float]
    decline: Dict[str, Any]
    questions: List[QuestionScore]
    subsets: Dict[str, Dict[str, float]]
    raw: Dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Score":
        s = d.get("set") or {}
        return cls(set=s.get("name"), version=s.get("version"), digest=s.get("digest"),
                   run=(d.get("run") or {}).get("name") or (d.get("run") or {}).get("path"),
                   k=d.get("k"), depth=d.get("depth"), measures=list(d.get("measures") or []),
                   aggregate=dict(d.get("aggregate") or {}), decline=dict(d.get("decline") or {}),
                   questions=[QuestionScore.from_json(q) for q in d.get("questions") or []],
                   subsets=dict(d.get("subsets") or {}), raw=d)

    def __getitem__(self, measure: str) -> float:
        """The mean of ``measure`` as the binary named it (``score["R@5"]``)."""
        if measure in self.aggregate:
            return self.aggregate[measure]
        return self.decline[measure]


@dataclass
class Rule:
    """One gate rule's verdict: ``line`` is the line ``compare`` prints for it."""
    measure: str
    subset: Optional[str]
    test: Optional[str]
    passed: bool
    why: str
    baseline: Optional[float]
    candidate: Optional[float]
    drop: Optional[float]
    p: Optional[float]
    p_adj: Optional[float]
    raw: Dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Rule":
        return cls(measure=d.get("measure"), subset=d.get("subset"), test=d.get("test"),
                   passed=bool(d.get("pass")), why=d.get("why", ""), baseline=d.get("baseline"),
                   candidate=d.get("candidate"), drop=d.get("drop"), p=d.get("p"),
                   p_adj=d.get("p_adj"), raw=d)

    @property
    def line(self) -> str:
        """The rule's line as ``compare`` prints it, headline first
        (``R@5 0.8894 -> 0.4687 (-0.4207) FAIL  max_drop 0.02 ...``)."""
        return self.raw.get("line") or self.why


@dataclass
class Change:
    """A question lost from (or gained in) the top k: its rank before and after
    (None: not in the list)."""
    id: str
    text: str
    rank_before: Optional[int]
    rank_after: Optional[int]

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Change":
        return cls(id=d["id"], text=d.get("text", ""), rank_before=d.get("rank_before"),
                   rank_after=d.get("rank_after"))


@dataclass
class Comparison:
    """``evalset compare --format json``: the gate's ``verdict`` line and
    ``rules``, the questions ``lost`` and ``gained`` in the top k, and the
    measure tables per subset (``subsets``, as the binary gives them)."""
    passed: bool
    verdict: str
    rules: List[Rule]
    lost: List[Change]
    gained: List[Change]
    k: int
    baseline: str
    candidate: str
    subsets: List[Dict[str, Any]]
    raw: Dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> "Comparison":
        g = d.get("gate") or {}
        return cls(passed=bool(g.get("passed")), verdict=g.get("verdict", ""),
                   rules=[Rule.from_json(r) for r in g.get("rules") or []],
                   lost=[Change.from_json(c) for c in d.get("lost") or []],
                   gained=[Change.from_json(c) for c in d.get("gained") or []],
                   k=d.get("k"), baseline=d.get("baseline"), candidate=d.get("candidate"),
                   subsets=list(d.get("subsets") or []), raw=d)

    @property
    def failed_rules(self) -> List[Rule]:
        return [r for r in self.rules if not r.passed]

    def summary(self, show: int = 10) -> str:
        """The verdict, every rule's line (as ``compare`` prints them) and the
        first ``show`` questions lost from the top k."""
        lines = [self.verdict] + ["  " + r.line for r in self.rules]
        if self.lost:
            lines.append(f"lost from the top {self.k}: {len(self.lost)}")
            for c in self.lost[:show]:
                after = "-" if c.rank_after is None else str(c.rank_after)
                lines.append(f"  {c.id}  rank {c.rank_before} -> {after}  {c.text}")
            if len(self.lost) > show:
                lines.append(f"  ... and {len(self.lost) - show} more")
        return "\n".join(lines)


@dataclass
class AddResult:
    """What ``evalset.add_testset`` added: the new question ids, the
    contexts (and questions) the binary could not place in the corpus, as it
    listed them, and its one-line summary."""
    added: List[str]
    unresolved: List[str]
    summary: str
