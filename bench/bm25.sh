#!/usr/bin/env bash
# Benchmark of the built-in BM25 retriever of `evalset run`: indexing 10,000
# chunks and answering 200 questions, with and without Porter stemming.
#
# usage: bench/bm25.sh [EVALSET]     (default: build-bm25/evalset)
#
# The chunks are real text: windows of 1 to 3 consecutive sentences of the
# SQuAD 2.0 dev paragraphs (../shared/data/squad2-dev) and the paragraphs of
# the FastAPI docs (../shared/data/fastapi-docs), the first 10,000 (override
# with BENCH_CHUNKS). The questions are the first 200 SQuAD questions.
#
# Index and read times are the ones `evalset run` measures itself (its
# "indexed N chunks ... in X s (read in Y s)" note); every figure is the best
# of 3. Ratios are against two floors measured in the same run on the same
# file: `cat corpus.jsonl > /dev/null` and `wc -w corpus.jsonl` (a bare
# whitespace tokeniser). Not run by the test suite.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build-bm25/evalset}
evalset=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
shared=$(cd "$src/../shared" && pwd)
nchunks=${BENCH_CHUNKS:-10000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

mkdir -p sets/bench
python3 - "$shared" "$nchunks" <<'EOF'
import glob, json, re, sys, zlib

shared, want = sys.argv[1], int(sys.argv[2])
squad = json.load(open(shared + "/data/squad2-dev/dev-v2.0.json"))["data"]
chunks, questions = [], []
split = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
for w in (1, 2, 3):
    for art in squad:
        for pi, para in enumerate(art["paragraphs"]):
            s = split.split(para["context"])
            for i in range(0, len(s) - w + 1):
                chunks.append({"id": "sq-%s-p%02d-w%d-s%02d" % (re.sub(r"\W+", "-", art["title"].lower()), pi, w, i),
                               "title": art["title"], "text": " ".join(s[i:i + w])})
            if w == 1:
                questions += [q["question"] for q in para["qas"]]
for path in sorted(glob.glob(shared + "/data/fastapi-docs/docs/**/*.md", recursive=True)):
    text = open(path, encoding="utf-8").read()
    for i, para in enumerate(p.strip() for p in re.split(r"\n\s*\n", text)):
        if len(para) > 40:
            chunks.append({"id": "fa-%s-%03d" % (re.sub(r"\W+", "-", path.split("/docs/")[-1]), i), "text": para})
# Interleave the sources so any prefix is a mix, then keep the first 'want'.
chunks.sort(key=lambda c: (zlib.crc32(c["id"].encode()) % 7919, c["id"]))
if len(chunks) < want:
    sys.exit("only %d chunks available" % len(chunks))
with open("sets/bench/corpus.jsonl", "w") as f:
    for c in chunks[:want]:
        f.write(json.dumps(c) + "\n")
with open("sets/bench/set.yaml", "w") as f:
    f.write("evalset: 1\nname: bench\ncorpus:\n  path: corpus.jsonl\nquestions:\n")
    for i, q in enumerate(questions[:200]):
        f.write("  - id: q-%04d\n    text: %s\n    answerable: false\n" % (i + 1, json.dumps(q)))
EOF
corpus=sets/bench/corpus.jsonl

now() { date +%s.%N; }
best_wall() { # best of 3 wall times of "$@", in seconds
  local b=999999 t0 t1 d
  for _ in 1 2 3; do
    t0=$(now); "$@" >/dev/null 2>&1; t1=$(now)
    d=$(echo "$t1 - $t0" | bc -l)
    b=$(echo "if ($d < $b) $d else $b" | bc -l)
  done
  echo "$b"
}
# Best of 3 of the index and read times evalset reports, and of the whole run.
best_run() {
  local bi=999999 br=999999 bw=999999 line i r t0 t1 w
  for _ in 1 2 3; do
    t0=$(now)
    line=$("$evalset" run sets/bench "$@" -o out.jsonl 2>&1 | grep '^note: indexed')
    t1=$(now)
    i=$(echo "$line" | sed -n 's/.* in \([0-9.]*\) s (read in \([0-9.]*\) s).*/\1/p')
    r=$(echo "$line" | sed -n 's/.* in \([0-9.]*\) s (read in \([0-9.]*\) s).*/\2/p')
    w=$(echo "$t1 - $t0" | bc -l)
    bi=$(echo "if ($i < $bi) $i else $bi" | bc -l)
    br=$(echo "if ($r < $br) $r else $br" | bc -l)
    bw=$(echo "if ($w < $bw) $w else $bw" | bc -l)
  done
  echo "$bi $br $bw"
}

cat_s=$(best_wall cat "$corpus")
wc_s=$(best_wall wc -w "$corpus")
read -r idx read_s wall <<<"$(best_run)"
read -r idx_stem read_stem wall_stem <<<"$(best_run --stem)"

printf 'corpus: %s chunks, %s bytes, %s words; 200 questions, k=100\n' \
  "$(wc -l < "$corpus")" "$(stat -c %s "$corpus")" "$(wc -w < "$corpus")"
printf 'floor: cat corpus.jsonl            %8.4f s\n' "$cat_s"
printf 'floor: wc -w corpus.jsonl          %8.4f s\n' "$wc_s"
printf 'read the corpus (JSONL)            %8.4f s\n' "$read_s"
for v in "index" "index --stem"; do
  if [ "$v" = index ]; then t=$idx; w=$wall; else t=$idx_stem; w=$wall_stem; fi
  printf '%-34s %8.4f s  (%.0fx cat, %.1fx wc -w); whole run %.3f s\n' \
    "BM25 $v" "$t" "$(echo "$t / $cat_s" | bc -l)" "$(echo "$t / $wc_s" | bc -l)" "$w"
done
