#!/usr/bin/env bash
# bench/generate-reference.sh: `evalset generate` against a reference client.
#
# usage: bench/generate-reference.sh [EVALSET] [CHUNKS] [LATENCY_MS] [CONCURRENCY] [ROUNDS]
#
# One request per chunk (--kinds factoid --no-critique --no-verify) for
# CHUNKS (default 320) chunks, the fake answering each after LATENCY_MS
# (default 200) with CONCURRENCY (default 32) in flight. The reference is
# what a team would write by hand: Python threads, each with one keep-alive
# connection, sending evalset's own requests (recorded by the fake in a
# first run) to the same fake (no journal, no filters, no set). Rounds (default 3) alternate the two;
# the least wall time of each is reported, and their ratio (the goal is
# 1.1 or less). The ideal is CHUNKS x LATENCY / CONCURRENCY. Not run by
# the test suite.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib.sh
. "$src/bench/lib.sh"
generate_bench_setup "${1:-}" "${2:-320}" "${3:-200}" "${4:-32}"
rounds=${5:-3}
ideal=$(python3 -c "print($chunks * $latency / 1000 / $conc)")
echo "chunks $chunks, latency ${latency} ms, concurrency $conc: ideal ${ideal}s; least of $rounds rounds"

# evalset's own requests, recorded once by the fake, are what the reference
# sends: the same bodies, so that the fake does the same work for both
rm -rf sets
"$evalset" init demo >/dev/null
start_fake --latency 0 --record requests.jsonl
OPENAI_API_KEY=bench "$evalset" generate demo --corpus chunks.jsonl --model bench \
	--base-url "http://127.0.0.1:$PORT/v1" --prompt-dir "$src/prompts" --kinds factoid \
	--no-critique --no-verify --concurrency "$conc" --quiet --max-copied 2 >/dev/null 2>&1
stop_fake
echo "recorded $(wc -l < requests.jsonl) requests of evalset for the reference to send"

cat > ref.py <<'PY'
import http.client, sys, threading, time, json
conc, port = int(sys.argv[1]), int(sys.argv[2])
todo = [l.encode() for l in open("requests.jsonl")]
lock = threading.Lock()
errors = []

def worker():
    conn = http.client.HTTPConnection("127.0.0.1", port)
    while True:
        with lock:
            if not todo:
                break
            body = todo.pop()
        conn.request("POST", "/v1/chat/completions", body,
                     {"Content-Type": "application/json", "Authorization": "Bearer bench"})
        r = conn.getresponse()
        data = r.read()
        if r.status != 200:
            errors.append(r.status)
        json.loads(data)
    conn.close()

t0 = time.monotonic()
threads = [threading.Thread(target=worker) for _ in range(conc)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print("%.4f %d" % (time.monotonic() - t0, len(errors)))
PY

best_ref=; best_ev=
for r in $(seq 1 "$rounds"); do
	start_fake --latency "$latency"
	t0=$(date +%s.%N)
	python3 ref.py "$conc" "$PORT" > ref.txt
	t1=$(date +%s.%N)
	read -r ref_in ref_err < ref.txt
	ref_s=$(python3 -c "print($t1 - $t0)")
	stop_fake
	rm -rf sets
	"$evalset" init demo >/dev/null
	start_fake --latency "$latency"
	t0=$(date +%s.%N)
	OPENAI_API_KEY=bench "$evalset" generate demo --corpus chunks.jsonl --model bench \
		--base-url "http://127.0.0.1:$PORT/v1" --prompt-dir "$src/prompts" --kinds factoid \
		--no-critique --no-verify --concurrency "$conc" --quiet --max-copied 2 >out.txt 2>err.txt
	rc=$?
	t1=$(date +%s.%N)
	requests=$(curl -s "http://127.0.0.1:$PORT/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['requests'])")
	stop_fake
	ev_s=$(python3 -c "print($t1 - $t0)")
	journaled=$(grep -c '"status":"ok"' sets/demo/.evalset/generate.jsonl)
	printf 'round %d: reference %.3fs (its own clock %.3fs; %s errors), evalset %.3fs (exit %s, %s requests, %s journaled)\n' \
		"$r" "$ref_s" "$ref_in" "$ref_err" "$ev_s" "$rc" "$requests" "$journaled"
	best_ref=$(python3 -c "print(min(x for x in [$ref_s, ${best_ref:-1e9}]))")
	best_in=$(python3 -c "print(min(x for x in [$ref_in, ${best_in:-1e9}]))")
	best_ev=$(python3 -c "print(min(x for x in [$ev_s, ${best_ev:-1e9}]))")
done
# evalset's own start (the dynamic loader and its libraries), the same way
start_s=$(python3 - "$evalset" <<'PY'
import subprocess, sys, time
best = 1e9
for _ in range(5):
    t = time.monotonic()
    subprocess.run([sys.argv[1], "--version"], stdout=subprocess.DEVNULL)
    best = min(best, time.monotonic() - t)
print(best)
PY
)
python3 -c "
ref, inner, ev, ideal, start = $best_ref, $best_in, $best_ev, $ideal, $start_s
print('reference %.3fs whole process (%.3fx ideal), %.3fs by its own clock (after the interpreter started)' % (ref, ref / ideal, inner))
print('evalset   %.3fs whole process (%.3fx ideal), of which %.3fs is starting a process (evalset --version)' % (ev, ev / ideal, start))
print('evalset/reference: %.3fx whole processes; %.3fx against the reference by its own clock' % (ev / ref, ev / inner))"
