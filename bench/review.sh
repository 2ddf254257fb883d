#!/usr/bin/env bash
# Benchmark of `evalset review` at scale: a set of 2,000 questions on a
# corpus of 50,000 chunks (override with BENCH_QUESTIONS, BENCH_CHUNKS),
# generated here: random words from a 20,000-word vocabulary, 60 words a
# chunk, five chunks to a document; each question is 8 words of its chunk,
# labelled relevant.
#
# usage: bench/review.sh [EVALSET]     (default: build/evalset)
#
# Measured over HTTP with curl (best of 5):
#   - start: from `evalset review` started to its address printed (the set
#     and corpus read, BM25 indexed);
#   - state: GET api/state, what a page load fetches (and its size);
#   - write: POST api/action (accept a question; its reply carries the
#     question, which the page patches in), and that POST followed by the
#     whole state, as the page loaded it after every write before;
#   - pool: a pool of the built-in BM25's run at depth 7 (about 12,000
#     pairs), one grade POSTed as the page does (floor: cat pool.yaml);
# and in headless Chromium (tests/browser's playwright-core, when chromium
# and node are there), median of 15:
#   - page load: navigation to the first question shown;
#   - write shown: a grade key to the status line saying it and the page redrawn;
#   - key in list: `j` in the list view to the next row selected (layout done).
# Floors, measured in the same run: `cat set.yaml corpus.jsonl >/dev/null`
# (reading the files) and GET favicon.ico (the server's bare round trip).
# Not run by the test suite.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$src/build/evalset}
evalset=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
nq=${BENCH_QUESTIONS:-2000}
nc=${BENCH_CHUNKS:-50000}
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir -p sets/bench
python3 - "$nq" "$nc" <<'PY'
import json, random, sys
random.seed(7)
nq, nc = int(sys.argv[1]), int(sys.argv[2])
vocab = ["w%05d" % i for i in range(20000)]
texts = []
with open("sets/bench/corpus.jsonl", "w") as f:
    for i in range(nc):
        t = random.sample(vocab, 60)
        texts.append(t)
        f.write(json.dumps({"id": "c-%05d" % i, "doc": "d%05d.txt" % (i // 5), "title": "document %d" % (i // 5),
                            "text": " ".join(t)}) + "\n")
with open("sets/bench/set.yaml", "w") as f:
    f.write("evalset: 1\nname: bench\ncorpus:\n  path: corpus.jsonl\nquestions:\n")
    for q in range(nq):
        c = random.randrange(nc)
        f.write("  - id: q-%05d\n    text: %s?\n    origin: synthetic\n    relevant:\n      c-%05d: 1\n"
                % (q + 1, " ".join(random.sample(texts[c], 8)), c))
PY
# best T COMMAND...: the best of 5 wall times of COMMAND, in ms
best() {
	python3 - "$@" <<'PY'
import subprocess, sys, time
ts = []
for _ in range(5):
    t0 = time.perf_counter()
    subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
    ts.append((time.perf_counter() - t0) * 1000)
print("%.1f" % min(ts))
PY
}
floor_cat=$(best sh -c 'cat sets/bench/set.yaml sets/bench/corpus.jsonl >/dev/null')

t0=$(date +%s.%N)
EVALSET_REVIEWER=bench "$evalset" review sets/bench > srv.out 2> srv.err &
pid=$!
for _ in $(seq 1 600); do grep -q '^review: http' srv.out && break; sleep 0.05; done
t1=$(date +%s.%N)
url=$(sed -n 's/^review: \(http[^ ]*\)$/\1/p' srv.out)
[ -n "$url" ] || { cat srv.err; exit 1; }
port=$(echo "$url" | sed 's|^http://127.0.0.1:\([0-9]*\)/.*|\1|')
start_ms=$(python3 -c "print('%.0f' % ((float('$t1') - float('$t0')) * 1000))")

floor_http=$(best curl -s -o /dev/null "${url}favicon.ico")
state_ms=$(best curl -s -o /dev/null "${url}api/state")
state_bytes=$(curl -s "${url}api/state" | wc -c)
cat > write.sh <<SH
#!/bin/sh
# a write as the page makes it: the digest of the file, then the accept
d=\$(sha256sum sets/bench/set.yaml | cut -d' ' -f1)
curl -s -o /dev/null -H 'Origin: http://127.0.0.1:$port' -H 'Content-Type: application/json' \
	--data "{\"digest\":\"sha256:\$d\",\"op\":\"accept\",\"id\":\"q-00002\"}" '${url}api/action'
SH
chmod +x write.sh
floor_sha=$(best sh -c 'sha256sum sets/bench/set.yaml >/dev/null')
write_ms=$(best ./write.sh)
write_page_ms=$(best sh -c "./write.sh && curl -s -o /dev/null '${url}api/state'")

printf '%-44s %10s\n' "evalset review, $nq questions, $nc chunks" "ms"
printf '%-44s %10s\n' "floor: cat set.yaml corpus.jsonl" "$floor_cat"
printf '%-44s %10s\n' "floor: GET favicon.ico (bare round trip)" "$floor_http"
printf '%-44s %10s\n' "start (read, index) to the address" "$start_ms"
printf '%-44s %10s   (%s bytes)\n' "GET api/state (a page load's data)" "$state_ms" "$state_bytes"
printf '%-44s %10s   (sha256sum of the set: %s ms)\n' "POST accept (one write)" "$write_ms" "$floor_sha"
printf '%-44s %10s\n' "POST accept, then GET api/state (old page)" "$write_page_ms"

chromium=
for c in ${CHROMIUM:-} /usr/bin/chromium /usr/bin/chromium-browser; do [ -x "$c" ] && { chromium=$c; break; }; done
if [ -n "$chromium" ] && command -v node >/dev/null && [ -f "$src/tests/browser/node_modules/playwright-core/package.json" ]; then
	mkdir profile
	node "$src/bench/review-page.mjs" "$chromium" "$tmp/profile" "$url"
else
	echo "(no chromium, node or tests/browser/node_modules: the in-browser figures are left out)"
fi

# a pool at scale: the built-in BM25's run pooled at depth 7 (its labelled
# chunk left out: about 12,000 pairs for 2,000 questions), one grade
# written as the page writes it (its reply carries the pair and the
# agreement, patched in by the page)
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
"$evalset" run sets/bench --bm25 -o run.jsonl >/dev/null 2>&1
"$evalset" pool sets/bench run.jsonl -o pool.yaml --depth 7 >/dev/null 2>&1
pairs=$(grep -c '^  - chunk: ' pool.yaml)
EVALSET_REVIEWER=bench "$evalset" review pool.yaml > pool.out 2> pool.err &
pid=$!
for _ in $(seq 1 600); do grep -q '^review: http' pool.out && break; sleep 0.05; done
purl=$(sed -n 's/^review: \(http[^ ]*\)$/\1/p' pool.out)
pport=$(echo "$purl" | sed 's|^http://127.0.0.1:\([0-9]*\)/.*|\1|')
pq=$(sed -n 's/^- id: //p' pool.yaml | head -1)
pc=$(sed -n 's/^  - chunk: //p' pool.yaml | head -1)
cat > grade.sh <<SH
#!/bin/sh
d=\$(sha256sum pool.yaml | cut -d' ' -f1)
curl -s -o /dev/null -H 'Origin: http://127.0.0.1:$pport' -H 'Content-Type: application/json' \
	--data "{\"digest\":\"sha256:\$d\",\"op\":\"grade\",\"id\":\"$pq\",\"chunk\":\"$pc\",\"grade\":2}" '${purl}api/action'
SH
chmod +x grade.sh
floor_pool=$(best sh -c 'cat pool.yaml >/dev/null')
grade_ms=$(best ./grade.sh)
printf '%-44s %10s   (%s pairs, %s bytes; cat: %s ms)\n' "pool: POST grade (one write)" "$grade_ms" "$pairs" \
	"$(wc -c < pool.yaml)" "$floor_pool"
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
