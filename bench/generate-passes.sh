#!/usr/bin/env bash
# bench/generate-passes.sh: the whole `evalset generate` pipeline against the
# fake server: generation, the critique pass and the verification pass.
#
# usage: bench/generate-passes.sh [EVALSET] [CHUNKS] [LATENCY_MS] [CONCURRENCY]
#
# CHUNKS (default 1000) chunks, kinds factoid and unanswerable: CHUNKS x 2
# generation requests, then one critique request per kept factoid question
# and one verification request per kept unanswerable one, each answered by
# the fake after LATENCY_MS (default 200) with CONCURRENCY (default 32) in
# flight. The passes run one after the other, so the ideal is every request
# of the run at full concurrency: REQUESTS x LATENCY / CONCURRENCY. Reports
# the wall time against that ideal and against a floor measured in the same
# run (curl --parallel sending as many requests to the same fake), and checks
# that every request was journaled exactly once. Not run by the test suite.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib.sh
. "$src/bench/lib.sh"
generate_bench_setup "$@"
"$evalset" init demo >/dev/null

# the run
start_fake --latency "$latency"
t0=$(date +%s.%N)
OPENAI_API_KEY=bench "$evalset" generate demo --corpus chunks.jsonl --model bench \
	--base-url "http://127.0.0.1:$PORT/v1" --prompt-dir "$src/prompts" --kinds factoid,unanswerable \
	--concurrency "$conc" --quiet --max-copied 2 >out.txt 2>err.txt
rc=$?
t1=$(date +%s.%N)
requests=$(curl -s "http://127.0.0.1:$PORT/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
stop_fake
gen=$(grep -c '"status":"ok"' sets/demo/.evalset/generate.jsonl)
crit=$(grep -c '"status":"ok"' sets/demo/.evalset/critique.jsonl)
ver=$(grep -c '"status":"ok"' sets/demo/.evalset/verify.jsonl)
ideal=$(python3 -c "print($requests * $latency / 1000 / $conc)")

# the floor: as many requests through curl --parallel to the same fake
fake_floor "$requests" "$conc" "$latency"
python3 - "$t0" "$t1" "$floor_s" "$ideal" "$rc" "$requests" "$gen" "$crit" "$ver" "$chunks" <<'PY'
import sys
t0, t1, floor, ideal = map(float, sys.argv[1:5])
rc, requests, gen, crit, ver, chunks = sys.argv[5:]
wall = t1 - t0
print("chunks %s: %s requests (generation %s, critique %s, verification %s journaled), exit %s"
      % (chunks, requests, gen, crit, ver, rc))
print("ideal    %6.2fs  (requests x latency / concurrency)" % ideal)
print("floor    %6.2fs  ratio to ideal %.3fx  (curl --parallel, same fake, same count)" % (floor, floor / ideal))
print("pipeline %6.2fs  ratio to ideal %.3fx  ratio to floor %.3fx" % (wall, wall / ideal, wall / floor))
PY
grep -E "^(critique|verification|usage)" out.txt
