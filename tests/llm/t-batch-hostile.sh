#!/usr/bin/env bash
# Batch jobs against a hostile or stuck provider (tests/fakes/fake_llm.py),
# printing TAP: a poll reply naming the results at another origin gets
# neither a request nor the key; --deadline stops a job whose batch stays in
# progress, and the rerun resumes that batch; a custom id given two
# different results in a batch, or in a --batch-in file, is never taken
# silently.
#
# usage: t-batch-hostile.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"

# make_case NAME CHUNKS: a set over a corpus of CHUNKS chunks
make_case() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	make_corpus chunks.jsonl "$2" 5 900 4
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
}
gen() { "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" \
	--prompt-dir "$src/prompts" --kinds factoid --no-critique --no-verify "$@"; }
journal=sets/demo/.evalset/generate-batches.jsonl
count() { local c; c=$(grep -c "$1" "$2" 2>/dev/null); echo "${c:-0}"; }

export OPENAI_API_KEY=sk-SENTINEL-hostile-5e21
export ANTHROPIC_API_KEY=sk-ant-api03-SENTINEL-hostile-9a4c

# listen: in the case's folder, a listener on another port that records
# every request it gets, headers and all, in listener.log; sets 'listener'
# (its pid) and 'other' (its port)
listen() {
	python3 - "$PWD/listener.port" "$PWD/listener.log" <<'PY' &
import http.server, sys
port_file, log = sys.argv[1], sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, "a") as f:
            f.write(self.path + "\n" + str(self.headers) + "\n")
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(port_file, "w").write(str(s.server_address[1]))
s.timeout = 60
s.handle_request(); s.handle_request()
PY
	listener=$!
	for _ in $(seq 1 50); do [ -s listener.port ] && break; sleep 0.1; done
	other=$(cat listener.port)
}

# ---- a poll reply naming the results elsewhere: no request goes there, no key ----
make_case elsewhere 10
listen
start_fake --batch-delay 0.1 --batch-results-origin "http://127.0.0.1:$other" --expect-key "$ANTHROPIC_API_KEY"
gen --provider anthropic --batch --batch-poll 0.1 >out 2>err
is "$?" 3 "results named at another origin: refused (exit 3)"
grep -q "the provider named the batch results at 'http://127.0.0.1:$other/.*', not on the endpoint '$BASE' (scheme, host and port): not fetched" err
ok $? "the message names both places" "$(cat err)"
[ ! -s listener.log ]; ok $? "the other origin got no request at all" "$(cat listener.log 2>/dev/null)"
! grep -rq "SENTINEL" out err sets/ listener.log 2>/dev/null; ok $? "the key is in no output, journal or request elsewhere"
is "$(count '"event":"created"' $journal):$(count '"event":"ended"' $journal)" "1:0" \
	"the batch stays pending in the journal (a rerun resumes it)"
kill $listener 2>/dev/null; wait $listener 2>/dev/null
stop_fake
# the same host under another port, or another scheme, is another origin too;
# the fake's own address is the one the results may be fetched from
make_case same-origin 10
start_fake --batch-delay 0.1 --expect-key "$ANTHROPIC_API_KEY"
gen --provider anthropic --batch --batch-poll 0.1 >out 2>err
is "$?" 0 "results on the base URL's origin are fetched" "$(tail -2 err)"
grep -q "10 answered now" out; ok $? "every request answered" "$(sed -n 2p out)"
stop_fake

# ---- the same refusal when a rerun looks up the batch of an interrupted run ----
# Killed after the provider created an Anthropic batch and before its id was
# journaled; the batch ends meanwhile, and the listing names its results at
# another origin. Matching the batch to the intent would need those results:
# they are not fetched, the key goes nowhere else, and since nobody can tell
# whether the batch is this job's, nothing is submitted again.
make_case lookup-elsewhere 10
listen
start_fake --batch-create-hang 30 --batch-delay 0.2 --batch-results-origin "http://127.0.0.1:$other" \
	--expect-key "$ANTHROPIC_API_KEY"
( exec "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" \
	--kinds factoid --no-critique --no-verify --provider anthropic --batch --batch-poll 0.1 >out 2>err ) &
pid=$!
for _ in $(seq 1 300); do [ "$(stat_py 'd["batch_creates"]')" = 1 ] && break; sleep 0.1; done
kill -9 $pid; wait $pid 2>/dev/null
is "$(stat_py 'd["batch_creates"]'):$(count '"event":"intent"' $journal):$(count '"event":"created"' $journal)" "1:1:0" \
	"killed after the create, before its id was journaled"
sleep 0.5   # the batch ends at the provider
gen --provider anthropic --batch --batch-poll 0.1 >out 2>err
is "$?" 3 "the rerun stops: the batch found cannot be matched without those results (exit 3)" "$(tail -3 err)"
grep -q "the provider named the batch results at 'http://127.0.0.1:$other/.*', not on the endpoint '$BASE' (scheme, host and port): not fetched" err
ok $? "the lookup says where the results were named, and that they were not fetched" "$(cat err)"
grep -q "cannot tell whether batch 'msgbatch_001' is the one an interrupted run created: its results could not be read; nothing submitted again" err
ok $? "and that it cannot tell whether the batch is this job's" "$(cat err)"
is "$(stat_py 'd["batch_creates"]'):$(count '"event":"abandoned"' $journal)" "1:0" \
	"no second batch is created (it could pay twice) and the intent is kept for the next run"
[ ! -s listener.log ]; ok $? "the other origin got no request at all" "$(cat listener.log 2>/dev/null)"
! grep -rq "SENTINEL" out err sets/ listener.log 2>/dev/null; ok $? "the key is in no output, journal or request elsewhere"
kill $listener 2>/dev/null; wait $listener 2>/dev/null
stop_fake

# ---- --deadline bounds the whole job, polling included; the rerun resumes ----
for provider in openai anthropic; do
	make_case "deadline-$provider" 10
	start_fake --batch-delay 6
	t0=$(date +%s.%N)
	gen --provider "$provider" --batch --batch-poll 0.2 --deadline 1s >out 2>err
	rc=$?
	t=$(python3 -c "import time; print(round(time.time() - $t0, 1))")
	is "$rc" 3 "$provider: a batch still in progress at --deadline: stopped (exit 3)"
	python3 -c "import sys; sys.exit(0 if $t < 4.5 else 1)"; ok $? "$provider: within the deadline, not when the batch ends (${t}s)"
	grep -q "stopped at --deadline 1s" err; ok $? "$provider: it says so" "$(cat err)"
	grep -q "batch: 1 batches still pending: run the same command" out; ok $? "$provider: the pending batch is named" "$(cat out)"
	is "$(count '"event":"created"' $journal):$(count '"event":"ended"' $journal)" "1:0" "$provider: its id is in the journal"
	gen --provider "$provider" --batch --batch-poll 0.2 >out 2>err
	is "$?" 0 "$provider: the rerun completes" "$(tail -2 err)"
	is "$(stat_py 'd["batch_creates"]')" 1 "$provider: by resuming the batch, not creating another"
	grep -q "10 answered now" out; ok $? "$provider: every request answered" "$(sed -n 2p out)"
	stop_fake
done
# judge --batch too
make_case deadline-judge 40
"$evalset" add demo --text "Which w001 setting?" --relevant c-0001 >/dev/null 2>&1
"$evalset" tag demo v1 >/dev/null 2>&1
printf 'q-0001 Q0 c-0001 1 9 r\nq-0001 Q0 c-0002 2 8 r\n' > run.trec
"$evalset" pool demo@v1 run.trec -o pool.yaml >/dev/null 2>&1
start_fake --batch-delay 6
t0=$(date +%s.%N)
"$evalset" judge pool.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --batch --batch-poll 0.2 \
	--deadline 1s >out 2>err
rc=$?
t=$(python3 -c "import time; print(round(time.time() - $t0, 1))")
is "$rc" 3 "judge: stopped at --deadline while polling (exit 3)"
python3 -c "import sys; sys.exit(0 if $t < 4.5 else 1)"; ok $? "judge: within the deadline (${t}s)"
stop_fake

# ---- a custom id given two results in one batch ----
for provider in openai anthropic; do
	make_case "dup-same-$provider" 10
	start_fake --batch-delay 0.1 --batch-duplicate same
	gen --provider "$provider" --batch --batch-poll 0.1 >out 2>err
	is "$?" 0 "$provider: a result given twice, the same: taken once" "$(tail -2 err)"
	! grep -q "two different results" err; ok $? "$provider: no warning for the same result"
	grep -q "10 answered now" out; ok $? "$provider: every request answered" "$(sed -n 2p out)"
	stop_fake
	make_case "dup-diff-$provider" 10
	start_fake --batch-delay 0.1 --batch-duplicate different
	gen --provider "$provider" --batch --batch-poll 0.1 >out 2>err
	is "$?" 3 "$provider: a request given two different results: neither taken, exit 3" "$(tail -2 err)"
	grep -q "batch '.*': 1 request is given two different results (e.g. 'g-.*'): neither is used, each counts as failed" err
	ok $? "$provider: the warning names the batch and the request" "$(cat err)"
	! grep -rq "A planted question" sets/; ok $? "$provider: the planted answer is in no journal or set"
	grep -q "9 answered now" out; ok $? "$provider: the others are answered" "$(sed -n 2p out)"
	is "$(stat_py 'd["batch_creates"]')" 3 "$provider: asked again in the follow-ups (given two results each time)"
	stop_fake
done

# ---- --batch-in: a file giving one custom id two different results is refused whole ----
make_case dup-batch-in 3
"$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 --prompt-dir "$src/prompts" \
	--kinds factoid --batch-out req.jsonl >/dev/null 2>&1
# the requests answered by the fake over HTTP, as a provider's batch would
start_fake
PORT=$PORT python3 - <<'PY'
import json, os, urllib.request
base = "http://127.0.0.1:%s/v1/chat/completions" % os.environ["PORT"]
lines = []
for l in open("req.jsonl"):
    r = json.loads(l)
    q = urllib.request.Request(base, data=json.dumps(r["body"]).encode(), headers={"Content-Type": "application/json"})
    body = json.load(urllib.request.urlopen(q))
    lines.append((r["custom_id"], body))
def line(cid, body):
    return json.dumps({"custom_id": cid, "response": {"status_code": 200, "body": body}, "error": None}) + "\n"
planted = json.loads(json.dumps(lines[1][1]))
planted["choices"][0]["message"]["content"] = json.dumps(
    {"questions": [{"question": "A planted question?", "answer": "planted", "quote": ""}]})
with open("same.jsonl", "w") as f:
    f.write(line(*lines[0]) + line(*lines[0]))
with open("diff.jsonl", "w") as f:
    f.write(line(*lines[1]) + line(*lines[2]) + line(lines[1][0], planted))
PY
stop_fake
cp sets/demo/set.yaml before.yaml
gin() { env -u OPENAI_API_KEY "$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" --kinds factoid "$@"; }
gin --batch-in diff.jsonl >out 2>err
is "$?" 2 "--batch-in: two different results for one custom_id: refused (exit 2)"
grep -q "diff.jsonl:3: custom_id 'g-.*' given another result than on line 1; nothing read from the file" err
ok $? "at the line, naming the first" "$(cat err)"
cmp -s before.yaml sets/demo/set.yaml; ok $? "the set is untouched"
[ ! -s sets/demo/.evalset/generate.jsonl ]; ok $? "no line of the file was taken, not even the good one"
gin --batch-in same.jsonl >out 2>err
is "$?" 0 "--batch-in: the same result twice is read" "$(cat err)"
grep -q "1 answered now" out; ok $? "and taken once" "$(cat out)"
is "$(grep -c '"status"' sets/demo/.evalset/generate.jsonl)" 1 "one journal record for it"

echo "1..$n"
[ "$failed" = 0 ]
