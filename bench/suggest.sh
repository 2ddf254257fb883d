#!/usr/bin/env bash
# Benchmark of "did you mean" for chunk ids on a large corpus: the sorted
# index of corpus_did_you_mean (what add, check, label, remap, generate,
# judge and review use for an id the corpus lacks) against offering every id
# one by one, and against reading and loading the corpus.
# bench/suggest.c is compiled here against a build dir's core library;
# nothing in the build or the test suite runs it.
#
# usage: bench/suggest.sh [BUILD_DIR]     (default: build)
#        BENCH_CHUNKS=N to change the corpus size (default 200000).
#
# The corpus: N chunks whose ids take three real shapes in equal parts
# (paths of the FastAPI docs with a paragraph anchor, SQuAD-style
# "sq-<article>-p07-w2-s03" ids, 32-digit hex hashes); their texts are
# SQuAD 2.0 dev paragraphs (../shared/data). The typos: 100 ids of the
# corpus with one random edit (a substitution, a deletion, an insertion or
# two neighbours swapped) and 20 strings close to no id. Floors measured in
# the same run: `cat corpus.jsonl > /dev/null` (reading) and evalset's own
# corpus_load. Best of 3 runs. Exits 1 when the index and one-by-one
# offering suggest differently.
set -eu
. "$(dirname "$0")/lib.sh"
bench_program suggest "${1:-}"
shared=$(cd "$src/../shared" 2>/dev/null && pwd) || {
	echo "bench/suggest.sh: needs ../shared/data (SQuAD 2.0 dev, FastAPI docs) beside the source tree" >&2
	exit 2
}
n=${BENCH_CHUNKS:-200000}
python3 - "$shared" "$n" "$tmp/corpus.jsonl" "$tmp/typos.txt" <<'PY'
import glob, json, os, random, sys
shared, n, out, typos = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rnd = random.Random(20261201)
squad = json.load(open(shared + "/data/squad2-dev/dev-v2.0.json"))["data"]
paras = [(a["title"].lower(), p["context"]) for a in squad for p in a["paragraphs"]]
docs = sorted(os.path.relpath(p, shared + "/data/fastapi-docs/docs")
              for p in glob.glob(shared + "/data/fastapi-docs/docs/**/*.md", recursive=True))
ids, seen = [], set()
i = 0
while len(ids) < n:
    shape = i % 3
    if shape == 0:
        cid = "%s#p%d" % (docs[(i // 3) % len(docs)], (i // 3) // len(docs))
    elif shape == 1:
        t, _ = paras[(i // 3) % len(paras)]
        cid = "sq-%s-p%02d-w%d-s%02d" % (t.replace("_", "-"), (i // 3) % 97, 1 + (i // 3) % 3, (i // 3) // len(paras))
    else:
        cid = "%032x" % rnd.getrandbits(128)
    i += 1
    if cid not in seen:
        seen.add(cid)
        ids.append(cid)
with open(out, "w") as f:
    for k, cid in enumerate(ids):
        f.write(json.dumps({"id": cid, "text": paras[k % len(paras)][1]}) + "\n")
alpha = "abcdefghijklmnopqrstuvwxyz0123456789-_#./"
with open(typos, "w") as f:
    for _ in range(100):
        s = list(rnd.choice(ids))
        k, op = rnd.randrange(len(s) - 1), rnd.randrange(4)
        if op == 0: s[k] = rnd.choice(alpha)
        elif op == 1: del s[k]
        elif op == 2: s.insert(k, rnd.choice(alpha))
        else: s[k], s[k + 1] = s[k + 1], s[k]
        f.write("".join(s) + "\n")
    for _ in range(20):
        f.write("".join(rnd.choice("qwxz") for _ in range(rnd.randrange(6, 40))) + "\n")
PY
echo "corpus: $n chunks, $(du -m "$tmp/corpus.jsonl" | cut -f1) MB; load: $(cut -d' ' -f1-3 /proc/loadavg)"
best_cat=
for _ in 1 2 3; do
	t0=$(date +%s.%N); cat "$tmp/corpus.jsonl" > /dev/null; t1=$(date +%s.%N)
	t=$(echo "$t1 - $t0" | bc -l)
	[ -z "$best_cat" ] || [ "$(echo "$t < $best_cat" | bc -l)" = 1 ] && best_cat=$t
done
for r in 1 2 3; do "$tmp/suggest" "$tmp/corpus.jsonl" "$tmp/typos.txt" > "$tmp/out.$r"; done
best() { awk -v k="$1" '$1 == k { print $2 }' "$tmp"/out.* | sort -g | head -1; }
typos=$(best typos)
row() { printf '%-46s %9.4f s %8.2fx cat %8.3fx load\n' "$1" "$2" "$(echo "$2 / $best_cat" | bc -l)" "$(echo "$2 / $(best load)" | bc -l)"; }
row 'floor: cat corpus.jsonl > /dev/null' "$best_cat"
row 'corpus_load (evalset reads the corpus)' "$(best load)"
row 'first lookup (sorting the ids, one lookup)' "$(best index)"
row "one lookup through the index (mean of $((typos - 1)))" "$(echo "$(best lookups) / ($typos - 1)" | bc -l)"
row 'one lookup offering every id (mean)' "$(echo "$(best naive) / $typos" | bc -l)"
echo "typos with a suggestion: $(best found) of $typos; index and one by one: the same suggestions"
