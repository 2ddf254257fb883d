#!/usr/bin/env bash
# Benchmark of `evalset report` at scale: a set of 7,000 questions (override
# with BENCH_QUESTIONS) on a corpus of 20,000 chunks, with a baseline and a
# candidate run of 100 ids a question, generated here: random words, each
# question 8 words of its relevant chunk, which the baseline ranks at a
# random depth (or leaves out) and the candidate mostly where the baseline
# did, so that some questions are lost, gained and never found.
#
# usage: bench/report.sh [EVALSET]     (default: build/evalset)
#        BENCH_KEEP=DIR bench/report.sh   keeps the page, the set and the runs in DIR
#
# Measured:
#   - make: `evalset report` writing the page (best of 3), against
#     `evalset score` of the candidate (reading the same set and run);
#   - size: the page's bytes, and those of its data blocks (<script
#     type="application/json">);
#   - in headless Chromium (tests/browser's playwright-core, when chromium
#     and node are there), median of 5: the page loaded from its file to its
#     script done (the load event), against a floor loaded the same way in
#     the same run: a page of the same size that draws nothing (its bytes in
#     a data block: the file read and parsed); then, in the
#     loaded page, a word typed into the question table's search to the
#     rows shown, a sort by a column header and a question picked for the
#     cutoff (the old page's <select> when it has one).
# Not run by the test suite.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build/evalset}
evalset=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
nq=${BENCH_QUESTIONS:-7000}
nc=${BENCH_CHUNKS:-20000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p sets/bench
python3 - "$nq" "$nc" <<'PY'
import json, random, sys
random.seed(5)
nq, nc = int(sys.argv[1]), int(sys.argv[2])
vocab = ["w%05d" % i for i in range(20000)]
texts = []
with open("sets/bench/corpus.jsonl", "w") as f:
    for i in range(nc):
        t = random.sample(vocab, 40)
        texts.append(t)
        f.write(json.dumps({"id": "c-%05d" % i, "doc": "d%05d.txt" % (i // 5),
                            "text": " ".join(t)}) + "\n")
tags = ["billing", "faq", "legal", "howto", "news"]
rel = []
with open("sets/bench/set.yaml", "w") as f:
    f.write("evalset: 1\nname: bench\ncorpus:\n  path: corpus.jsonl\nquestions:\n")
    for q in range(nq):
        c = random.randrange(nc)
        rel.append(c)
        f.write("  - id: q-%05d\n    text: %s?\n    origin: %s\n    tags: [%s]\n"
                "    relevant:\n      c-%05d: 1\n"
                % (q + 1, " ".join(random.sample(texts[c], 8)),
                   random.choice(["synthetic", "mined", "hand"]), random.choice(tags), c))
# where each run ranks a question's relevant chunk: the baseline from a
# skewed draw, the candidate the same rank for 85% of the questions and a
# fresh draw for the rest
ranks = [0] * 10 + [1] * 4 + [2, 2, 3, 4, 6, 9, 14, 40, None]
where = {"base.jsonl": [], "cand.jsonl": []}
for q in range(nq):
    b = random.choice(ranks)
    where["base.jsonl"].append(b)
    where["cand.jsonl"].append(b if random.random() < 0.85 else random.choice(ranks))
def run(name, seed):
    r = random.Random(seed)
    with open(name, "w") as f:
        for q in range(nq):
            ids = r.sample(range(nc), 100)
            ids = [i for i in ids if i != rel[q]][:99]
            at = where[name][q]
            if at is not None:
                ids.insert(at, rel[q])
            f.write(json.dumps({"qid": "q-%05d" % (q + 1),
                                "results": ["c-%05d" % i for i in ids[:100]]}) + "\n")
run("base.jsonl", 1)
run("cand.jsonl", 2)
PY
# best COMMAND...: the best of 3 wall times of COMMAND, in ms
best() {
	python3 - "$@" <<'PY'
import subprocess, sys, time
ts = []
for _ in range(3):
    t0 = time.perf_counter()
    subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.perf_counter() - t0) * 1000)
print("%.0f" % min(ts))
PY
}
floor_score=$(best "$evalset" score sets/bench cand.jsonl)
make_ms=$(best "$evalset" report sets/bench base.jsonl cand.jsonl -o report.html)
[ -s report.html ] || { "$evalset" report sets/bench base.jsonl cand.jsonl -o report.html; exit 1; }
size=$(wc -c < report.html)
[ -z "${BENCH_KEEP:-}" ] || { mkdir -p "$BENCH_KEEP" && cp -a report.html sets base.jsonl cand.jsonl "$BENCH_KEEP"/; }
data=$(python3 -c '
import re, sys
s = open("report.html", encoding="utf-8").read()
print(sum(len(m.encode()) for m in re.findall(r"<script type=\"application/json\"[^>]*>(.*?)</script>", s, re.S)))')

printf '%-50s %10s\n' "evalset report, $nq questions, $nc chunks" ""
printf '%-50s %10s ms\n' "floor: evalset score of the candidate" "$floor_score"
printf '%-50s %10s ms\n' "evalset report (baseline and candidate)" "$make_ms"
printf '%-50s %10s bytes\n' "the page" "$size"
printf '%-50s %10s bytes\n' "  its JSON data blocks" "$data"

chromium=
for c in ${CHROMIUM:-} /usr/bin/chromium /usr/bin/chromium-browser; do [ -x "$c" ] && { chromium=$c; break; }; done
if [ -n "$chromium" ] && command -v node >/dev/null && [ -f "$src/tests/browser/node_modules/playwright-core/package.json" ]; then
	# the floor: a page of as many bytes that draws nothing (the bytes in a
	# data block): reading and parsing the file, no layout, no script
	python3 - "$size" <<'PY'
import sys
n = int(sys.argv[1])
head = "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>floor</title></head><body><p>floor</p><script type=application/json>\""
tail = "\"</script></body></html>\n"
line = "w01234 w04321 w11111 w00042 w17777 w05555 w09999 w12345 w00001 "
body = (line * (n // len(line) + 1))[: max(0, n - len(head) - len(tail))]
open("floor.html", "w").write(head + body + tail)
PY
	mkdir profile
	node "$src/bench/report-page.mjs" "$chromium" "$tmp/profile" "$tmp/report.html" "$tmp/floor.html"
else
	echo "(no chromium, node or tests/browser/node_modules: the in-browser figures are left out)"
fi
