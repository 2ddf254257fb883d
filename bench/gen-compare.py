#!/usr/bin/env python3
"""Generate the inputs of bench/compare.sh: a set of N questions and two
saved results files (core/score/results.h format) scored "against" it.

usage:
  gen-compare.py set DIR N             write DIR/set.yaml (N questions)
  gen-compare.py results DIGEST N OUT SHIFT SEED [--format-1]
                                       write a results file for the set whose
                                       tagged digest is DIGEST; SHIFT moves the
                                       mean of every measure (e.g. -0.01);
                                       format 2 (judged ranks; what compare
                                       checks), or 1 for an older evalset

Deterministic for a given SEED. 10 measures; every tenth question is
unanswerable; origins and four tags spread over the questions.
"""
import json
import random
import sys

FORMAT = 2  # "evalset_results"; 1 for an evalset from before format 2 (--format-1)
MEASURES = ["R@5", "R@10", "P@5", "P@10", "nDCG@5", "nDCG@10", "RR", "AP",
            "Success@5", "Success@10"]
ORIGINS = ["synthetic", "mined", "hand"]
TAGS = ["hard", "vocabulary-gap", "multi-hop", "numeric"]


def qid(i):
    return "q-%05d" % (i + 1)


def write_set(d, n):
    with open(d + "/set.yaml", "w") as f:
        f.write("evalset: 1\nname: bench\ndescription: compare benchmark\nquestions:\n")
        for i in range(n):
            f.write("  - id: %s\n    text: benchmark question number %d\n" % (qid(i), i + 1))
            f.write("    origin: %s\n" % ORIGINS[i % 3])
            if i % 10 == 9:
                f.write("    answerable: false\n")
            else:
                f.write("    relevant: [c-%d]\n" % i)
            f.write("    tags: [%s]\n" % TAGS[i % 4])


def write_results(digest, n, out, shift, seed):
    rnd = random.Random(seed)
    base = random.Random(7)  # the per-question difficulty is shared by both runs
    qs = []
    agg = [0.0] * len(MEASURES)
    na = nu = declined_u = 0
    for i in range(n):
        diff = base.random()
        answerable = i % 10 != 9
        q = {"id": qid(i), "text": "benchmark question number %d" % (i + 1),
             "origin": ORIGINS[i % 3], "answerable": answerable,
             "tags": [TAGS[i % 4]], "missing": False, "num_ret": 50,
             "num_rel": 1 if answerable else 0, "top": ["c-%d" % j for j in range(10)]}
        if answerable:
            na += 1
            p = min(max(diff + shift + rnd.gauss(0, 0.15), 0.0), 1.0)
            rank = 1 + int((1 - p) * 30) if rnd.random() < 0.9 else 0
            vals = {}
            for m in MEASURES:
                k = int(m.split("@")[1]) if "@" in m else 0
                hit = rank > 0 and (k == 0 or rank <= k)
                if m.startswith("P@"):
                    v = 1.0 / k if hit else 0.0
                elif m.startswith("nDCG"):
                    v = 1.0 / __import__("math").log2(rank + 1) if hit else 0.0
                elif m in ("RR", "AP"):
                    v = 1.0 / rank if hit else 0.0
                else:
                    v = 1.0 if hit else 0.0
                vals[m] = v
            for j, m in enumerate(MEASURES):
                agg[j] += vals[m]
            q.update(declined=False, rel_ranks=[rank] if rank else [], values=vals,
                     judged=[[rank, "c-%d" % i, 1]] if rank else [], levels=[0, 1])
        else:
            nu += 1
            dec = rnd.random() < 0.5 + shift
            declined_u += dec
            q.update(declined=dec, rel_ranks=[], values={}, judged=[], levels=[])
        qs.append(q)
    doc = {"evalset_results": FORMAT,
           "set": {"name": "bench", "version": "v1", "digest": digest},
           # the run was scored elsewhere: its path names no file here, so compare
           # has no run file to check the digest against
           "run": {"path": "runs/%s.jsonl" % seed, "sha256": "sha256:%064x" % seed,
                   "name": "run-%s" % seed},
           "k": 5, "depth": 50, "measures": MEASURES,
           "aggregate": {m: agg[j] / na for j, m in enumerate(MEASURES)},
           "decline": {"Decline": declined_u / nu, "FalseDecline": 0.0,
                       "unanswerable": nu, "answerable": na},
           "questions": qs}
    with open(out, "w") as f:
        json.dump(doc, f)


if __name__ == "__main__":
    if "--format-1" in sys.argv:
        sys.argv.remove("--format-1")
        FORMAT = 1
    if sys.argv[1] == "set":
        write_set(sys.argv[2], int(sys.argv[3]))
    else:
        write_results(sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5]),
                      int(sys.argv[6]))
