#!/usr/bin/env bash
# End-to-end tests of `generate --batch` and `judge --batch` against the
# batch endpoints of tests/fakes/fake_llm.py (OpenAI files and batches, the
# Azure OpenAI form, Anthropic message batches) over HTTP on 127.0.0.1,
# printing TAP: a 2,000-request job split over files, killed with -9 while
# polling and resumed without a second submission; partial failures and an
# expired batch retried in a follow-up batch; results equal to the live
# path's for the same fake replies; the cost estimate and its refusal; a
# crash between a batch's creation and its journal record; unusable replies
# asked again; judge's --batch-out and --batch-in.
#
# usage: t-batch.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"

# make_case NAME CHUNKS: a set over a corpus of CHUNKS chunks
make_case() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	make_corpus chunks.jsonl "$2" 5 900 4
	make_run run.trec 8 5 3 "$2" 4
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
}
# make_pool_case NAME: make_case NAME 40 with eight labelled questions, tagged
# v1, and the worksheet pool.yaml of run.trec over it
make_pool_case() {
	make_case "$1" 40
	"$evalset" add demo --text "Which w001 setting?" --relevant c-0001 >/dev/null 2>&1
	for i in 2 3 4 5 6 7 8; do "$evalset" add demo --text "Question $i about w00$i?" --relevant c-000$i >/dev/null 2>&1; done
	"$evalset" tag demo v1 >/dev/null 2>&1
	"$evalset" pool demo@v1 run.trec -o pool.yaml >/dev/null 2>&1; ok $? "a pool to judge"
}
gen() { "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" \
	--prompt-dir "$src/prompts" --kinds factoid,paraphrase --no-critique --no-verify "$@"; }
# the replies a job recorded: each journal key with its questions (what the
# set keeps of them depends on the order replies arrive in: near duplicates)
replies() { python3 -c '
import json, sys
for line in open(sys.argv[1] + "/sets/demo/.evalset/generate.jsonl"):
    r = json.loads(line)
    if r.get("status") == "ok":
        print(r["key"], json.dumps(r["questions"], sort_keys=True))' "$1" | sort; }
created() { local c; c=$(grep -c '"event":"created"' sets/demo/.evalset/generate-batches.jsonl 2>/dev/null); echo "${c:-0}"; }

export OPENAI_API_KEY=sk-SENTINEL-batch-31c7
export ANTHROPIC_API_KEY=sk-ant-api03-SENTINEL-batch-77d0

# ---- the live path over the same fake replies, as the reference ----
make_case live 1000
start_fake
gen --concurrency 32 >out 2>err
is "$?" 0 "the live path answers 2,000 requests"
stop_fake

# ---- 2,000 requests split over 4 files, kill -9 while polling, resumed ----
make_case big 1000
start_fake --batch-delay 6 --expect-key "$OPENAI_API_KEY"
( exec "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" \
	--kinds factoid,paraphrase --batch --batch-max-requests 500 --batch-poll 0.2 >out 2>err ) &
pid=$!
for _ in $(seq 1 300); do [ "$(created)" = 4 ] && break; sleep 0.1; done
is "$(created)" 4 "four batches created and journaled before polling"
sleep 0.5
kill -9 $pid; wait $pid 2>/dev/null
curl -s "http://127.0.0.1:$PORT/stats" >/dev/null; ok $? "the fake server is still up"
is "$(stat_py 'd["batch_creates"]')" 4 "the fake saw one create per file"
is "$(stat_py 'd["batch_sizes"]')" "[500, 500, 500, 500]" "split at --batch-max-requests"
gen --batch --batch-max-requests 500 --batch-poll 0.2 >out 2>err
is "$?" 0 "the rerun resumes and completes" "$(tail -3 err)"
is "$(stat_py 'd["batch_creates"]')" 4 "no second submission after kill -9"
is "$(stat_py 'd["files_uploaded"]')" 4 "no file uploaded twice"
grep -q "batch: 0 created (0 files), 4 resumed, 0 requests submitted, 2000 not submitted again, 2000 results" out
ok $? "the summary says the 4 batches were resumed" "$(grep '^batch' out)"
grep -q "2000 answered now" out; ok $? "every request answered" "$(sed -n 2p out)"
replies "$root/big" > got; replies "$root/live" > want
cmp -s got want; ok $? "the replies recorded equal the live path's for the same fake replies"
is "$(wc -l < got)" 2000 "2000 replies recorded"
gen --batch --batch-max-requests 500 --batch-poll 0.2 >out 2>err
is "$(stat_py 'd["batch_creates"]')" 4 "a third run submits nothing"
grep -q "batch estimate: 0 requests to submit" out; ok $? "its estimate says so" "$(head -1 out)"
! grep -rq "SENTINEL" out err sets/; ok $? "the key is in no output, journal or batch journal"
stop_fake

# ---- kill -9 after the provider created a batch, before its id was journaled ----
# The fake holds the reply to the first create for 30 s after the batch
# exists: the run is killed in that window, with only the batch's intent (its
# tag) journaled. The rerun must find the batch (by its metadata tag for
# OpenAI; by time, size and custom ids for Anthropic) and pay nothing twice.
intents() { local c; c=$(grep -c '"event":"intent"' sets/demo/.evalset/generate-batches.jsonl 2>/dev/null); echo "${c:-0}"; }
for provider in openai anthropic; do
	make_case "hang-$provider" 40
	start_fake --batch-create-hang 30 --batch-delay 0.3
	( exec "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" \
		--kinds factoid,paraphrase --no-critique --no-verify --provider "$provider" --batch --batch-poll 0.1 >out 2>err ) &
	pid=$!
	for _ in $(seq 1 300); do [ "$(stat_py 'd["batch_creates"]')" = 1 ] && break; sleep 0.1; done
	kill -9 $pid; wait $pid 2>/dev/null
	is "$(stat_py 'd["batch_creates"]'):$(created):$(intents)" "1:0:1" "$provider: killed after the create, before its id was journaled"
	gen --provider "$provider" --batch --batch-poll 0.1 >out 2>err
	is "$?" 0 "$provider: the rerun completes" "$(tail -3 err)"
	is "$(stat_py 'd["batch_creates"]')" 1 "$provider: the rerun created no second batch"
	grep -q "found batch '.*', which an interrupted run created (80 requests)" err
	ok $? "$provider: it says it found the batch" "$(cat err)"
	grep -q "1 resumed (1 found at the provider" out; ok $? "$provider: the summary counts it" "$(grep '^batch' out)"
	grep -q "80 answered now" out; ok $? "$provider: every request answered" "$(sed -n 2p out)"
	gen --provider "$provider" --batch --batch-poll 0.1 >out 2>err
	is "$(stat_py 'd["batch_creates"]'):$(stat_py 'd["batch_lists"]')" "1:1" "$provider: a third run neither creates nor looks up again"
	stop_fake
done
# an intent whose batch never reached the provider: looked up once, then submitted
make_case lost-intent 10
start_fake --batch-delay 0.2
BASE=$BASE python3 - <<'PY'
import hashlib, json, os, time
os.makedirs("sets/demo/.evalset", exist_ok=True)
ep = hashlib.sha256(os.environ["BASE"].encode()).hexdigest()[:16]
with open("sets/demo/.evalset/generate-batches.jsonl", "a") as f:
    f.write(json.dumps({"event": "intent", "job": "generate", "provider": "openai", "endpoint": ep,
                        "tag": "evalset-000000000000000000000001", "round": 0, "at": time.time(),
                        "keys": ["g-never-sent"]}) + "\n")
PY
gen --batch --batch-poll 0.1 >out 2>err
is "$?" 0 "an intent with no batch at the provider: the run completes" "$(tail -3 err)"
is "$(stat_py 'd["batch_lists"]'):$(stat_py 'd["batch_creates"]')" "1:1" "looked up once, then one batch submitted"
grep -q '"event":"abandoned","job":"generate".*"tag":"evalset-000000000000000000000001"' sets/demo/.evalset/generate-batches.jsonl
ok $? "the intent is journaled as abandoned"
stop_fake

# ---- partial failures and an expired batch, retried in a follow-up batch ----
make_case partial 100
start_fake --batch-delay 0.2 --batch-fail 0.1
gen --batch --batch-max-requests 80 --batch-poll 0.1 >out 2>err
is "$?" 0 "a batch with failed lines completes" "$(tail -2 err)"
grep -q "200 answered now" out; ok $? "every request answered after the follow-up" "$(sed -n 2p out)"
is "$(stat_py 'd["batch_creates"]')" 4 "3 batches and one follow-up"
is "$(stat_py 'd["batch_lines"]')" "$(stat_py '200 + d["batch_sizes"][3]')" "only the failed lines asked again"
grep -q "sending them again in a follow-up batch" err; ok $? "a note says so"
stop_fake
make_case expired 50
start_fake --batch-delay 0.2 --batch-expire
gen --batch --batch-poll 0.1 >out 2>err
is "$?" 0 "an expired batch: the job completes" "$(tail -2 err)"
grep -q "100 answered now" out; ok $? "the expired half asked again and answered" "$(sed -n 2p out)"
is "$(stat_py 'd["batch_sizes"]')" "[100, 50]" "a follow-up of the 50 expired requests"
stop_fake
make_case stubborn 20
start_fake --batch-delay 0.1 --batch-fail 1
gen --batch --batch-poll 0.1 >out 2>err
is "$?" 0 "lines failing only once: answered in the follow-up"
stop_fake

# ---- replies that come back unusable (prose, not JSON): asked again in the follow-up, bounded ----
make_case malformed 50
start_fake --batch-delay 0.2 --batch-malformed 0.2
gen --batch --batch-poll 0.1 >out 2>err
is "$?" 0 "unusable replies in a batch: the job completes" "$(tail -2 err)"
bad=$(stat_py 'd["batch_malformed"]')
[ "$bad" -gt 5 ]; ok $? "the fake answered some lines with prose ($bad)"
grep -q "100 answered now" out; ok $? "every request answered after the follow-up" "$(sed -n 2p out)"
is "$(stat_py 'd["batch_sizes"]')" "[100, $bad]" "only the unusable ones asked again"
grep -q "$bad unusable, $bad retried in a follow-up" out; ok $? "the summary counts them" "$(grep '^batch' out)"
! grep -q '"status":"unusable"' sets/demo/.evalset/generate.jsonl; ok $? "no unusable record in the journal"
stop_fake
for provider in openai anthropic; do
	make_case "truncated-$provider" 40
	start_fake --batch-delay 0.1 --batch-truncate 0.25
	gen --provider "$provider" --batch --batch-poll 0.1 >out 2>err
	is "$?" 0 "$provider: replies cut at max_tokens: the job completes" "$(tail -2 err)"
	grep -q "80 answered now" out; ok $? "$provider: every request answered" "$(sed -n 2p out)"
	is "$(stat_py 'sorted(set(str(v[1] // v[0]) for v in d["line_max_tokens"].values() if len(v) > 1))')" "['2']" \
		"$provider: a cut reply is asked again with twice its max_tokens"
	[ "$(stat_py 'd["batch_creates"]')" = 2 ]; ok $? "$provider: in one follow-up batch"
	stop_fake
done
make_case malformed-always 10
start_fake --batch-delay 0.1 --batch-malformed 0.3 --batch-malformed-always
gen --batch --batch-poll 0.1 >out 2>err
rc=$?
bad=$(stat_py 'd["batch_sizes"][1]')
is "$(stat_py 'd["batch_creates"]'):$(stat_py 'd["batch_sizes"][2]')" "3:$bad" "always unusable: asked again in two follow-ups, no more"
is "$(grep -c '"status":"unusable"' sets/demo/.evalset/generate.jsonl)" "$bad" "then recorded unusable ($bad)"
is "$rc" 0 "the rest was usable: exit 0" "$(tail -2 err)"
stop_fake

# ---- Azure OpenAI: deployment URL with api-version, files and batches under /openai ----
make_case azure 30
start_fake --batch-delay 0.2
"$evalset" generate demo --corpus chunks.jsonl --model dep --prompt-dir "$src/prompts" --kinds factoid \
	--base-url "http://127.0.0.1:$PORT/openai/deployments/dep?api-version=2024-10-21" \
	--batch --batch-poll 0.1 >out 2>err
is "$?" 0 "the Azure form completes" "$(tail -2 err)"
grep -q "30 answered now" out; ok $? "every request answered" "$(sed -n 2p out)"
stop_fake

# ---- Anthropic message batches: the same questions as the live Messages API ----
make_case anthropic-live 60
start_fake
gen --provider anthropic >out 2>err
is "$?" 0 "the live Messages path"
stop_fake
make_case anthropic 60
start_fake --batch-delay 0.2 --batch-fail 0.1 --expect-key "$ANTHROPIC_API_KEY"
gen --provider anthropic --batch --batch-max-requests 50 --batch-poll 0.1 >out 2>err
is "$?" 0 "Anthropic message batches complete" "$(tail -2 err)"
is "$(stat_py 'd["batch_sizes"][:3]')" "[50, 50, 20]" "split at --batch-max-requests"
is "$(stat_py 'd["files_uploaded"]')" 0 "no files: requests go inline"
replies "$root/anthropic" > got; replies "$root/anthropic-live" > want
cmp -s got want; ok $? "the replies recorded equal the live Messages path's ($(wc -l < want))"
! grep -rq "SENTINEL" out err sets/; ok $? "the key is in no output or journal"
stop_fake

# ---- judge --batch: the same worksheet as the live judge ----
make_pool_case judge
cp pool.yaml live.yaml
start_fake --batch-delay 0.2 --batch-fail 0.2 --batch-malformed 0.2
"$evalset" judge pool.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" \
	--batch --batch-max-requests 10 --batch-poll 0.1 >out 2>err
is "$?" 0 "judge --batch completes" "$(tail -2 err)"
! grep -q "grade: null" pool.yaml; ok $? "every pair graded"
pairs=$(grep -c '^  - chunk: ' pool.yaml)
grep -q "$pairs graded now" out; ok $? "as many grades as pairs ($pairs)" "$(grep pairs: out)"
is "$(stat_py 'd["live"]')" 0 "no live request"
[ "$(stat_py 'd["batch_malformed"]')" -gt 0 ]; ok $? "some grades came back as prose and were asked again"
is "$(grep -c '"event":"created"' sets/demo/.evalset/judge-batches.jsonl)" "$(stat_py 'd["batch_creates"]')" "judge's batches in its own batch journal"
rm -f sets/demo/.evalset/judge.jsonl
"$evalset" judge live.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" >out 2>err
cmp -s pool.yaml live.yaml; ok $? "the worksheet equals the live judge's"
stop_fake

# ---- judge --batch on a terminal: the wait ticks between polls ----
# (a pseudo-terminal from script(1); the batch runs 5 s, polled every 3 s
# at first: the line is redrawn each second with the provider's counts)
make_pool_case judgetty
start_fake --batch-delay 5
cat > "$root/jtty.sh" <<EOF
exec "$evalset" judge pool.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" \\
	--batch --batch-poll 3 "\$@"
EOF
script -qec "bash $root/jtty.sh" /dev/null > tty.raw 2>&1
is "$?" 0 "judge --batch completes on a terminal"
tr '\r' '\n' < tty.raw > tty.lines
grep -aqE '^judge: batch: 0/[0-9]+ requests finished, waiting [0-9]+s, next poll in [0-9]s' tty.lines
ok $? "before the provider counts any request finished, the line says how long it has waited" "$(grep -a batch: tty.lines | head -3)"
grep -aqE '^judge: batch: [1-9][0-9]*/[0-9]+ requests finished, [0-9.]+/s, ETA [0-9]+s, (next poll in [0-9]+s|polling)' tty.lines
ok $? "once some are finished, the provider's count, a rate and the time left" "$(grep -a batch: tty.lines | tail -3)"
[ "$(grep -ac 'next poll in' tty.lines)" -ge 3 ]; ok $? "the line is redrawn while waiting between polls, not only at them" "$(grep -ac 'next poll in' tty.lines)"
grep -aq "graded now" tty.lines; ok $? "the summary follows"
make_pool_case judgepipe
bash "$root/jtty.sh" >out 2>err
is "$?" 0 "judge --batch completes off a terminal"
! grep -aq "judge: batch:" err; ok $? "off a terminal, no progress line" "$(head -3 err)"
make_pool_case judgequiet
script -qec "bash $root/jtty.sh --quiet" /dev/null > quiet.raw 2>&1
! grep -aq "judge: batch:" quiet.raw; ok $? "with --quiet, no progress line on a terminal either"
stop_fake

# ---- judge --batch-out / --batch-in: the requests file out, the results back in ----
make_pool_case judgeio
cp pool.yaml live.yaml; cp pool.yaml before.yaml
pairs=$(grep -c '^  - chunk: ' pool.yaml)
jio() { env -u OPENAI_API_KEY "$evalset" judge pool.yaml --model fake-1 --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" "$@"; }
jio --batch-out requests.jsonl >out 2>err
is "$?" 0 "judge --batch-out exits 0 without a key or a server" "$(cat err)"
is "$(wc -l < requests.jsonl)" "$pairs" "one request line per pair to grade ($pairs)"
grep -q "wrote $pairs requests to requests.jsonl" out; ok $? "it says so" "$(cat out)"
cmp -s pool.yaml before.yaml; ok $? "the pool is left alone"
python3 -c '
import json
l = [json.loads(x) for x in open("requests.jsonl")]
assert all(x["custom_id"].startswith("j-") and x["url"] == "/v1/chat/completions" and x["body"]["model"] == "fake-1" for x in l)
assert len({x["custom_id"] for x in l}) == len(l)'; ok $? "OpenAI lines, custom_id the journal key"
jio --batch-out x.jsonl --batch >out 2>err; is "$?" 2 "--batch-out with --batch is refused"
jio --batch-in x.jsonl --against demo@v1 >out 2>err; is "$?" 2 "--batch-in with --against is refused"
# the requests answered by the fake over HTTP, as a provider's batch would: the
# first line fails, one answer is for a request not in the plan
start_fake
answer() {   # answer REQUESTS OUT ERRORS FAIL-FIRST
	python3 - "$@" <<'PY'
import json, sys, urllib.request
reqs, out, errs, fail_first = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
base = "http://127.0.0.1:%s/v1/chat/completions" % __import__("os").environ["PORT"]
o, e = open(out, "w"), open(errs, "w")
for i, line in enumerate(open(reqs)):
    r = json.loads(line)
    if i == 0 and fail_first:
        e.write(json.dumps({"custom_id": r["custom_id"], "response": {"status_code": 500, "body": {"error": {"message": "boom"}}}, "error": None}) + "\n")
        continue
    q = urllib.request.Request(base, data=json.dumps(r["body"]).encode(), headers={"Content-Type": "application/json"})
    body = json.load(urllib.request.urlopen(q))
    o.write(json.dumps({"custom_id": r["custom_id"], "response": {"status_code": 200, "body": body}, "error": None}) + "\n")
if fail_first:
    o.write(json.dumps({"custom_id": "j-not-in-this-plan", "response": {"status_code": 200, "body": body}, "error": None}) + "\n")
PY
}
PORT=$PORT answer requests.jsonl results.jsonl errors.jsonl 1; ok $? "the fake answered the requests"
jio --batch-in results.jsonl --batch-in errors.jsonl >out 2>err
is "$?" 0 "judge --batch-in exits 0" "$(cat err)"
grep -q "batch: $pairs lines matched, 1 not in this plan, 1 errors" out; ok $? "it counts matched, unknown and failed lines" "$(cat out)"
is "$(grep -c 'grade: null' pool.yaml)" 1 "every pair graded but the failed one"
jio --batch-out again.jsonl >out 2>err
is "$(wc -l < again.jsonl)" 1 "a new --batch-out holds only the failed pair"
PORT=$PORT answer again.jsonl results2.jsonl errors2.jsonl 0
jio --batch-in results2.jsonl >out 2>err
is "$?" 0 "its result read in"
! grep -q "grade: null" pool.yaml; ok $? "every pair graded"
rm -f sets/demo/.evalset/judge.jsonl
"$evalset" judge live.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" >out 2>err
cmp -s pool.yaml live.yaml; ok $? "the worksheet equals the live judge's" "$(diff pool.yaml live.yaml | head -5)"
stop_fake

# ---- the estimate, and a budget refusal before anything is submitted ----
make_case budget 100
start_fake
gen --batch --dry-run --price 0.075/0.3 >out 2>err
is "$?" 0 "--batch --dry-run exits 0"
grep -Eq "batch estimate: 200 requests to submit, about [0-9]+ prompt tokens, at most [0-9]+ completion tokens, at most about \\\$[0-9.]+" out
ok $? "it prints the estimate with its cost" "$(cat out)"
gen --batch --price 10/30 --max-cost 0.01 >out 2>err
is "$?" 2 "an estimate over --max-cost is refused (exit 2)"
grep -q "more than --max-cost" err; ok $? "the message says why" "$(cat err)"
is "$(stat_py 'd["batch_creates"] + d["files_uploaded"]')" 0 "nothing was uploaded or created"
gen --batch --max-cost 1 >out 2>err
is "$?" 2 "--max-cost without --price is refused"
gen --batch --price 1-2 >out 2>err
is "$?" 2 "a bad --price is refused"
gen --batch --batch-out x.jsonl >out 2>err
is "$?" 2 "--batch with --batch-out is refused"
stop_fake

# ---- --batch-out writes the provider's line format (vLLM's runner reads the OpenAI one) ----
make_case out 5
"$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 --prompt-dir "$src/prompts" \
	--kinds factoid --batch-out openai.jsonl >out 2>err
python3 -c '
import json, sys
l = [json.loads(x) for x in open("openai.jsonl")]
assert len(l) == 5 and all(x["url"] == "/v1/chat/completions" and x["method"] == "POST" and x["body"]["messages"] for x in l)
' ; ok $? "OpenAI lines: custom_id, method, url, body"
"$evalset" generate demo --corpus chunks.jsonl --model m --provider anthropic --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" --kinds factoid --batch-out anthropic.jsonl >out 2>err
python3 -c '
import json, sys
l = [json.loads(x) for x in open("anthropic.jsonl")]
assert len(l) == 5 and all(set(x) == {"custom_id", "params"} and x["params"]["tool_choice"]["type"] == "tool" for x in l)
' ; ok $? "Anthropic lines: custom_id and params with the forced tool"

echo "1..$n"
[ "$failed" = 0 ]
