#!/usr/bin/env python3
"""Differential test of `evalset trec-eval` against a trec_eval binary.

Makes random qrels and runs (ties written several ways, graded and negative
judgments, unjudged and run-only queries, queries missing from the run,
shuffled and split line orders, the -c stand-in docno judged) and runs both
programs under a list of flag variants. Where trec_eval exits 0, evalset must
print the same bytes; where it fails, evalset must fail with a message.

  tools/te-diff.py --evalset build/evalset --trec-eval trec_eval --cases 200
  tools/te-diff.py ... --write tests/conformance/trec_eval --cases 40 --prefix g

--write stores each case in the conformance pack's layout (qrels, run,
cmd.<variant>, expected.<variant>.{out,err,rc}) with trec_eval's output, so
the suite runs without trec_eval. trec_eval is not shipped: build it from
https://github.com/usnistgov/trec_eval (see docs/trec-eval.md).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile

STAND_IN = "ceci_nest_pas_un_docno"

VARIANTS = [
    [], ["-q"], ["-c"], ["-c", "-q"], ["-J"], ["-J", "-q"], ["-l2"], ["-l", "0"],
    ["-M5"], ["-M", "1"], ["-M0"], ["-n", "-q"],
    ["-m", "all_trec"], ["-q", "-m", "all_trec"], ["-c", "-q", "-m", "all_trec"],
    ["-c", "-l3", "-m", "all_trec"], ["-J", "-m", "all_trec"], ["-M3", "-q", "-m", "all_trec"],
    ["-m", "set", "-q"], ["-c", "-m", "set"],
    ["-q", "-m", "ndcg.1=3,2=9", "-m", "ndcg_rel.0=1,3=2", "-m", "Rndcg.2=0.5", "-m", "G.1=2"],
    ["-q", "-m", "dcg", "-m", "ideal_dcg", "-m", "G.0=1,2=0.5", "-m", "ndcg_rel"],
    ["-q", "-m", "dcg.1=2,2=4"],
    ["-q", "-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.8"],
    ["-q", "-N", "1000", "-m", "utility.2,-1,1,0.5", "-m", "set_F.0.5", "-m", "relstring.5"],
    ["-q", "-m", "11pt_avg.0.2,0.5,0.9", "-m", "Rprec_mult.0.5,1.5", "-m", "iprec_at_recall.0.25,0.75"],
    ["-q", "-m", "P.1,3,50", "-m", "relative_P.2,7", "-m", "unj.1,4", "-m", "success.2",
     "-m", "map_cut.3", "-m", "ndcg_cut.2,8", "-m", "recall.4"],
    ["-c", "-J", "-q", "-m", "official", "-m", "relstring"],
]


def score_text(rng, s):
    forms = [repr(float(s)), "%g" % s, "%.3f" % s, "%de0" % s if s == int(s) else "%g" % s]
    if s == int(s):
        forms.append(str(int(s)))
    return rng.choice(forms)


DOC_STYLES = {
    "short": lambda i: "d%d" % i,
    "long": lambda i: "clueweb09-en0000-%02d-%05d" % (i % 7, i * 37 % 100000),
    "eight": lambda i: "%08d" % (i * 7919 % 100000000),
    "mixed": lambda i: ("clueweb09-en%04d" % i) if i % 3 else ("d%d" % i),
}


def make_case(rng, shapes=False, ordered=False):
    """A random case; with 'shapes', also long docids (beyond 8 bytes),
    docids of exactly 8 bytes, mixed lengths and big shuffled runs (more
    than a thousand lines, many questions); with 'ordered', each query's
    lines are written by score, highest first, as most runs are (ties in
    random docid order, not trec_eval's), and the run is not shuffled."""
    big = shapes and rng.random() < 0.5
    docid = DOC_STYLES[rng.choice(list(DOC_STYLES))] if shapes else DOC_STYLES["short"]
    nq = rng.randint(25, 45) if big else rng.randint(1, 7)
    qids = set()
    while len(qids) < nq:
        qids.add(rng.choice(["q%d" % rng.randint(1, 30), str(rng.randint(1, 120)), "T%02d" % rng.randint(0, 99)]
                            + (["query-%04d" % rng.randint(0, 9999)] if shapes else [])))
    qids = sorted(qids)
    qrels, run = [], []
    for q in qids:
        pool = [docid(i) for i in rng.sample(range(1, 60), rng.randint(3, 25))]
        judged = rng.sample(pool, rng.randint(1, len(pool)))
        style = rng.random()
        for i, d in enumerate(judged):
            if style < 0.1:
                # no relevant document; never only negative grades, where
                # trec_eval v10.0 fails ("Can't calculate measure")
                g = 0 if i == 0 else rng.choice([0, -1])
            else:
                g = rng.choices([0, 1, 2, 3, 4, -1], [40, 30, 12, 6, 2, 5])[0] if i else rng.randint(0, 3)
            qrels.append((q, d, g))
        if rng.random() < 0.15:
            qrels.append((q, STAND_IN, rng.choice([0, 1, 2, -1])))
        if rng.random() < 0.2 and q != qids[0]:
            continue  # missing from the run
        n = rng.randint(1 if q == qids[0] else 0, 90 if big else 30)
        filler = [docid(100 + i) for i in range(80)] if shapes else ["x%d" % i for i in range(40)]
        docs = rng.sample(pool + filler, min(n, len(pool) + len(filler)))
        int_scores = rng.random() < 0.5
        lines = []
        for i, d in enumerate(docs):
            s = float(rng.randint(0, 6)) if int_scores else round(rng.uniform(-3, 10), rng.choice([1, 2, 6]))
            lines.append((q, d, i + 1, s))
        if ordered:
            lines.sort(key=lambda x: -x[3])  # stable: ties keep their random docid order
            lines = [(q, d, i + 1, s) for i, (q, d, _, s) in enumerate(lines)]
        run.extend(lines)
    for _ in range(rng.randint(0, 2)):  # run-only query, duplicates allowed
        q = "zz%d" % rng.randint(0, 9)
        for i in range(rng.randint(1, 4)):
            run.append((q, "d1", i + 1, 1.0))
    order = 1 if ordered else rng.random() * (0.4 if big else 1)
    if order < 0.4:
        rng.shuffle(run)
    elif order < 0.6 and len(run) > 3:
        k = rng.randint(1, 3)
        run = run[k:] + run[:k]
    tag = rng.choice(["runA", "bm25", "t"])
    qtext = "".join("%s%s0%s%s%s%d\n" % (q, rng.choice([" ", "\t"]), " ", d, " ", g) for q, d, g in qrels)
    rtext = "".join("%s Q0 %s %d %s %s\n" % (q, d, r, score_text(rng, s), tag) for q, d, r, s in run)
    return qtext, rtext


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--evalset", required=True)
    ap.add_argument("--trec-eval", default="trec_eval")
    ap.add_argument("--cases", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--write", help="store the cases and trec_eval's outputs under this directory")
    ap.add_argument("--prefix", default="g")
    ap.add_argument("--shapes", action="store_true",
                    help="also long, 8-byte and mixed docids and big shuffled runs")
    ap.add_argument("--ordered", action="store_true",
                    help="each query's lines by score, highest first, as most runs are written")
    ap.add_argument("--variants-per-case", type=int, default=0,
                    help="with --write: a random subset of variants per case (0: all)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    evalset = os.path.abspath(a.evalset)
    comparisons = diffs = crashed = 0
    tmp = tempfile.mkdtemp()
    try:
        for n in range(a.cases):
            qtext, rtext = make_case(rng, a.shapes, a.ordered)
            d = os.path.join(tmp, "c")
            os.makedirs(d, exist_ok=True)
            open(os.path.join(d, "qrels"), "w").write(qtext)
            open(os.path.join(d, "run"), "w").write(rtext)
            variants = list(enumerate(VARIANTS))
            if a.write and a.variants_per_case:
                variants = rng.sample(variants, a.variants_per_case)
            kept = []
            for vi, flags in variants:
                want = run([a.trec_eval] + flags + ["qrels", "run"], d)
                got = run([evalset, "trec-eval"] + flags + ["qrels", "run"], d)
                if want[0] < 0:
                    crashed += 1  # trec_eval died on a signal: nothing to compare
                    continue
                comparisons += 1
                if want[0] == 0:
                    same = got[0] == 0 and got[1] == want[1]
                else:
                    same = got[0] != 0 and got[2] != b""
                if not same:
                    diffs += 1
                    print("DIFF case %d variant %s: trec_eval rc %d, evalset rc %d" %
                          (n, " ".join(flags), want[0], got[0]))
                    keep = os.path.join(tmp, "diff%d" % diffs)
                    shutil.copytree(d, keep)
                    open(os.path.join(keep, "want"), "wb").write(want[1] + want[2])
                    open(os.path.join(keep, "got"), "wb").write(got[1] + got[2])
                    print("  kept in", keep)
                kept.append((vi, flags, want))
            if a.write:
                cd = os.path.join(a.write, "%s%03d" % (a.prefix, n))
                os.makedirs(cd, exist_ok=True)
                shutil.copy(os.path.join(d, "qrels"), cd)
                shutil.copy(os.path.join(d, "run"), cd)
                for vi, flags, want in kept:
                    v = "v%02d" % vi
                    open(os.path.join(cd, "cmd." + v), "w").write(" ".join(["trec_eval"] + flags + ["qrels", "run"]) + "\n")
                    open(os.path.join(cd, "expected.%s.out" % v), "wb").write(want[1])
                    open(os.path.join(cd, "expected.%s.err" % v), "wb").write(want[2])
                    open(os.path.join(cd, "expected.%s.rc" % v), "w").write("%d\n" % want[0])
    finally:
        if not diffs:
            shutil.rmtree(tmp)
    print("%d comparisons, %d differences (%d runs where trec_eval crashed, not compared)"
          % (comparisons, diffs, crashed))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
