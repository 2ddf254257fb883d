#!/usr/bin/env bash
# bench/generate.sh: throughput of `evalset generate` against the fake server.
#
# usage: bench/generate.sh [EVALSET] [CHUNKS] [LATENCY_MS] [CONCURRENCY]
#
# Runs CHUNKS (default 1000) factoid requests at LATENCY_MS (default 200) per
# request and CONCURRENCY (default 32) in flight, twice: a clean server, and
# one where 10% of replies are 429 (retry-after 1 s, half of them) or 503
# (the other half). Reports wall time against the ideal
# CHUNKS x LATENCY / CONCURRENCY, and checks that every chunk was answered
# and journaled exactly once. Targets: clean <= 1.15x, faults <= 1.6x.
# A floor is measured first in the same run (curl --parallel against the same
# fake), since the fake's own CPU use and a busy machine move every figure.
# Not run by the test suite.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib.sh
. "$src/bench/lib.sh"
generate_bench_setup "$@"
ideal=$(python3 -c "print($chunks * $latency / 1000 / $conc)")
echo "chunks $chunks, latency ${latency} ms, concurrency $conc: ideal ${ideal}s"

run() {   # run NAME FAKE-ARGS...
	local name=$1; shift
	rm -rf sets
	"$evalset" init demo >/dev/null
	start_fake --latency "$latency" "$@"
	local t0 t1
	t0=$(date +%s.%N)
	OPENAI_API_KEY=bench "$evalset" generate demo --corpus chunks.jsonl --model bench \
		--base-url "http://127.0.0.1:$PORT/v1" --prompt-dir "$src/prompts" --kinds factoid \
		--concurrency "$conc" --quiet --max-copied 2 >out.txt 2>err.txt
	local rc=$?
	t1=$(date +%s.%N)
	local stats
	stats=$(curl -s "http://127.0.0.1:$PORT/stats")
	stop_fake
	local journaled
	journaled=$(grep -c '"status":"ok"' sets/demo/.evalset/generate.jsonl)
	python3 - "$name" "$t0" "$t1" "$ideal" "$rc" "$journaled" "$chunks" "$stats" "$floor_s" <<'EOF'
import json, sys
name, t0, t1, ideal, rc, journaled, chunks, stats, floor_s = sys.argv[1:]
wall = float(t1) - float(t0)
s = json.loads(stats)
answered = s["answered"]
print("%-8s wall %6.2fs  ratio %.3fx  vs floor %.3fx  exit %s  requests %d  journaled %s/%s  answered keys %d  max answered per key %d  max in flight %d"
      % (name, wall, wall / float(ideal), wall / float(floor_s), rc, s["requests"], journaled, chunks, len(answered),
         max(answered.values()) if answered else 0, s["max_in_flight"]))
EOF
	grep "^usage" out.txt | sed 's/^/         /'
}

# floor: the same fake and request count driven by curl --parallel (no
# journal, no filters, no set): what this machine and the fake can do
floor() {
	fake_floor "$chunks" "$conc" "$latency"
	python3 -c "print('floor    wall %6.2fs  ratio %.3fx  (curl --parallel-max $conc, same fake)' % ($floor_s, $floor_s / $ideal))"
}

floor
run clean
run faults --fault 429:0.05 --fault 503:0.0526 --retry-after 1
