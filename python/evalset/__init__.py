"""evalset from Python: score a retriever function on an evaluation set and
gate on regressions, with the evalset binary as the one engine.

    import evalset
    run = evalset.run("squad-demo@v1", my_retriever, k=100, output="runs/mine.jsonl")
    print(evalset.score("squad-demo@v1", run)["R@5"])
    cmp = evalset.compare("squad-demo@v1", "baselines/main.jsonl", run, gate="gate.yaml")
    assert cmp.passed, cmp.summary()

Nothing is computed here: the binary reads the set, checks and writes the
run, scores and compares; this package calls it and reads its JSON. See
docs/python.md.
"""
from ._version import __version__
from ._binary import EvalsetError, binary, call
from ._types import AddResult, Answer, Change, Comparison, Question, QuestionScore, Rule, Run, Score
from ._api import add_testset, compare, questions, run, score

__all__ = ["__version__", "EvalsetError", "binary", "call", "AddResult", "add_testset", "Answer", "Change", "Comparison",
           "Question", "QuestionScore", "Rule", "Run", "Score", "compare", "questions", "run",
           "score"]
