"""Retrieval gates as a team writes them with the evalset pytest plugin: the
toy BM25 against its own baseline passes; the broken copy fails with the
gate's rule lines (tests/python/t-python.sh runs these in a subprocess and
checks both outcomes and the messages)."""
import pytest

import evalset
import retrievers

GATE = dict(set="squad-demo@v1", baseline="baselines/toy-bm25.jsonl",
            gate="sets/squad-demo/gate.yaml", k=20)


@pytest.mark.evalset(**GATE)
def test_toy_bm25(evalset_gate):
    result = evalset_gate(retrievers.toy_bm25)
    # a passed Comparison; with --evalset-update-baseline, the Run written
    assert isinstance(result, evalset.Run) or result.passed


@pytest.mark.evalset(**GATE)
def test_broken_bm25(evalset_gate):
    evalset_gate(retrievers.broken_bm25)
