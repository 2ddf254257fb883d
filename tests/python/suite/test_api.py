"""evalset.run, score and compare on the demo set, through the installed
binary (run from the top of a source tree: sets/squad-demo is the set)."""
import json
import os
import subprocess

import pytest

import evalset
import retrievers

SET = "squad-demo@v1"
GATE = "sets/squad-demo/gate.yaml"


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    return evalset.run(SET, retrievers.toy_bm25, k=50, concurrency=4,
                       output=tmp_path_factory.mktemp("runs") / "toy.jsonl")


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    return evalset.run(SET, retrievers.broken_bm25, k=50,
                       output=tmp_path_factory.mktemp("runs") / "broken.jsonl")


def meta(path):
    with open(path) as f:
        return json.loads(f.readline())["meta"]


def test_run_writes_the_meta_of_evalset_run(toy, tmp_path):
    assert toy.complete and toy.answered == toy.questions == 173
    bm25 = tmp_path / "bm25.jsonl"
    subprocess.run([evalset.binary(), "run", SET, "-o", str(bm25)], check=True,
                   capture_output=True)
    ours, theirs = meta(toy.path), meta(bm25)
    for key in ("set", "version", "digest", "content_digest", "questions_digest", "questions"):
        assert ours[key] == theirs[key], key
    assert ours["retriever"] == "python retrievers.toy_bm25"
    assert ours["k"] == 50 and set(ours["latency_ms"]) == {"p50", "p95"}
    assert len(toy.latency_ms) == 173


def test_run_records_the_questions_that_raised(broken):
    assert broken.errors == {"q-0002": "RuntimeError: index shard 3 unavailable"}
    assert not broken.complete and broken.answered == 172
    with open(broken.path) as f:
        qids = [json.loads(l).get("qid") for l in f][1:]
    assert "q-0002" not in qids and len(qids) == 172


def test_run_passes_what_the_function_names(tmp_path):
    seen = {}

    def only_tags(text, *, tags, question):
        seen[question.id] = (text, tags, question.history)
        return []

    def everything(text, **kw):
        seen.setdefault("kw", set(kw))
        return evalset.Answer(["warsaw-p07"], abstained=True)

    evalset.run(SET, only_tags, output=tmp_path / "a.jsonl")
    q = evalset.questions(SET)[0]
    assert seen[q.id] == (q.text, q.tags, None) and q.tags == ["squad"]
    r = evalset.run(SET, everything, k=7, output=tmp_path / "b.jsonl")
    assert seen["kw"] == {"k", "id", "tags", "history", "question"}
    with open(r.path) as f:
        first = json.loads(f.readlines()[1])
    assert first["abstained"] is True and first["results"] == ["warsaw-p07"]


def test_run_reports_answers_the_binary_refuses(tmp_path):
    r = evalset.run(SET, lambda text: ["warsaw-p07", "warsaw-p07"], output=tmp_path / "d.jsonl")
    assert r.answered == 0 and not r.complete
    assert any("document 'warsaw-p07' is listed twice" in m for m in r.messages)


def test_score_returns_the_binary_s_values(toy, broken):
    s = evalset.score(SET, toy, measures=["R@5", "nDCG@10"], by="tag")
    b = evalset.score(SET, broken.path, measures=["R@5", "nDCG@10"], by="tag")
    assert s.set == "squad-demo" and s.version == "v1" and s.measures == ["R@5", "nDCG@10"]
    assert 0.7 < s["R@5"] <= 1 and b["R@5"] < s["R@5"] - 0.2
    assert s.subsets["tag=hard"]["n"] == 23 and "R@5" in s.subsets["tag=squad"]
    by_id = {q.id: q for q in b.questions}
    assert by_id["q-0002"].missing and by_id["q-0002"].values["R@5"] == 0
    assert s["FalseDecline"] == 0


def test_compare_gives_the_gate_verdict(toy, broken, tmp_path):
    again = evalset.run(SET, retrievers.toy_bm25, k=50, output=tmp_path / "again.jsonl")
    same = evalset.compare(SET, toy, again, gate=GATE)
    assert same.passed and not same.lost and not same.failed_rules
    md, junit = tmp_path / "c.md", tmp_path / "c.xml"
    c = evalset.compare(SET, toy, broken, gate=GATE, markdown=md, junit=junit)
    assert not c.passed and c.verdict.startswith("gate FAILED")
    failed = {r.measure for r in c.failed_rules}
    assert {"R@5", "nDCG@10", "coverage"} <= failed
    assert "q-0001" in {x.id for x in c.lost}
    # headline first: the measure, baseline -> candidate (delta), the verdict
    r5 = next(r for r in c.failed_rules if r.measure == "R@5")
    assert r5.line.startswith(f"R@5 {r5.baseline:.4f} -> {r5.candidate:.4f} (-{r5.drop:.4f}) FAIL  ")
    assert all(" FAIL  " in r.line for r in c.failed_rules)
    assert "**FAIL**" in md.read_text() and "<testsuite" in junit.read_text()


def test_errors_carry_the_message_and_the_exit_code(toy, tmp_path):
    with pytest.raises(evalset.EvalsetError) as e:
        evalset.score("squad-demo@v9", toy)
    assert e.value.exit_code == 2 and "unknown version 'v9'" in e.value.message
    bad = tmp_path / "sets" / "bad"
    bad.mkdir(parents=True)
    (bad / "set.yaml").write_text("evalset: 1\nname: bad\nquestions:\n  - id: q-1\n    txet: oops\n")
    with pytest.raises(evalset.EvalsetError) as e:
        evalset.questions(str(bad))
    assert e.value.exit_code == 2 and f"{bad}/set.yaml:5:" in e.value.message


def test_add_testset_imports_each_tool_through_the_binary(tmp_path):
    import shutil
    cases = "tests/cli/cases/imp-tool-"
    files = {"ragas": "ragas/files/testset.jsonl", "deepeval": "deepeval/files/goldens.json",
             "llamaindex": "llamaindex/files/qa_pairs.json"}
    shutil.copytree(cases + "ragas/files/sets", tmp_path / "sets")
    added = {}
    for tool, f in files.items():
        added[tool] = evalset.add_testset("fruit", os.path.abspath(cases + f), tool,
                                          tags=[tool], cwd=tmp_path)
    assert added["ragas"].added == ["q-0001", "q-0002"]
    assert any('"How long does a mango take to ripen?" left out' in u
               for u in added["ragas"].unresolved)
    assert added["ragas"].summary.endswith("3 of 5 contexts found in the corpus; 1 question left out")
    assert added["deepeval"].added == ["q-0003", "q-0004"]
    assert added["llamaindex"].added == ["q-0005", "q-0006"] and not added["llamaindex"].unresolved
    qs = evalset.questions("fruit", cwd=tmp_path)
    assert [q.tags for q in qs] == [["ragas"]] * 2 + [["deepeval"]] * 2 + [["llamaindex"]] * 2
    with pytest.raises(evalset.EvalsetError) as e:
        evalset.add_testset("fruit", tmp_path / "missing.json", "ragas", cwd=tmp_path)
    assert e.value.exit_code == 2 and "missing.json" in e.value.message


def test_add_testset_hf_jsonl_with_named_columns(tmp_path):
    import shutil
    case = "tests/cli/cases/imp-hf-jsonl/files/"
    shutil.copytree(case + "sets", tmp_path / "sets")
    r = evalset.add_testset("fruit", os.path.abspath(case + "qa.jsonl"), "hf", cwd=tmp_path,
                            fields={"question": "question", "contexts": "contexts",
                                    "chunks": "positive_ids", "id": "id"})
    assert r.added == ["q-0001", "q-0002", "q-0003"]
    assert any("chunk 'c-aple' is not in the corpus; did you mean 'c-apple'?" in u
               for u in r.unresolved)
    kiwi = evalset.questions("fruit", cwd=tmp_path)[1]
    assert sorted(kiwi.raw["relevant"]) == ["c-kiwi"] and kiwi.origin == "hand"
    with pytest.raises(ValueError):
        evalset.add_testset("fruit", case + "qa.jsonl", "hf", cwd=tmp_path)
