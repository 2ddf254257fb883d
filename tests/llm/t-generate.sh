#!/usr/bin/env bash
# End-to-end tests of `evalset generate` against tests/fakes/fake_llm.py,
# printing TAP: requests, resume, retries, the structured-output ladder,
# errors that stop a job, budgets, batches, shards, deadlines and stalls
# (t-generate-quality.sh: which questions are kept). Each case starts its
# own fake server (a coprocess that exits when this script closes its stdin
# or exits) and a scratch directory.
#
# usage: t-generate.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gen-lib.sh"

# ---- basic run, provenance, rerun sends nothing ----
make_case basic
start_fake
gen --kinds factoid,paraphrase,multi-hop,unanswerable --per-chunk 2 >out 2>err
is "$?" 0 "generate succeeds"
is "$(stat_py 'd["requests"]')" 96 "one request per chunk and kind (24 x 4)"
is "$(stat_py 'max(d["keys"].values())')" 1 "no request sent twice"
kept=$(count_q)
ok $([ "$kept" -gt 150 ] && echo 0 || echo 1) "questions kept ($kept of 192)"
grep -q "overlap of kept questions" out; ok $? "summary shows the overlap distribution"
grep -q "answerable: false" sets/demo/set.yaml; ok $? "unanswerable questions added as answerable: false"
python3 - <<'EOF' >check.txt
import re
text = open("sets/demo/set.yaml").read()
pairs = [b for b in text.split("\n- id: ")[1:] if "kind: multi-hop" in b]
good = 0
for b in pairs:
    rel = re.search(r"relevant: \[([^\]]*)\]", b).group(1).split(", ")
    good += len(rel) == 2 and int(rel[0][2:]) // 4 != int(rel[1][2:]) // 4
print(len(pairs), good)
EOF
read -r mh mhgood < check.txt
ok $([ "$mh" -gt 0 ] && [ "$mh" = "$mhgood" ] && echo 0 || echo 1) "multi-hop questions have two relevant chunks of different documents ($mhgood of $mh)"
for k in chunk kind model prompt seed sample overlap; do
	grep -q "^    $k: " sets/demo/set.yaml || { ok 1 "provenance has $k"; continue; }
	ok 0 "provenance has $k"
done
"$evalset" check demo --corpus chunks.jsonl >/dev/null 2>&1
ok $([ $? -le 1 ] && echo 0 || echo 1) "the generated set loads and checks"
"$evalset" check demo --corpus chunks.jsonl 2>&1 | grep -q "^error" && ok 1 "no check errors" || ok 0 "no check errors"
gen --kinds factoid,paraphrase,multi-hop,unanswerable --per-chunk 2 >out 2>err
is "$?" 0 "rerun succeeds"
is "$(stat_py 'd["requests"]')" 96 "rerun sends no request"
is "$(count_q)" "$kept" "rerun adds nothing"
# same prompts, new seed: new requests, but the fake repeats itself: all duplicates
gen --kinds factoid --per-chunk 2 --seed 2 >out 2>err
is "$(stat_py 'd["requests"]')" 120 "a new seed is a new request"
grep -q ", 0 kept" out; ok $? "questions already in the set are dropped" "$(grep questions: out)"
dups=$(sed -n 's/.* \([0-9]*\) duplicate of the set.*/\1/p' out)
ok $([ "${dups:-0}" -ge 40 ] && echo 0 || echo 1) "duplicates of the set counted ($dups)"
stop_fake

# ---- a question rejected in review never comes back ----
make_case rejected
start_fake
gen --kinds factoid >out 2>err
is "$?" 0 "generate before a review"
kept=$(count_q)
# the review page rejects every question: they leave set.yaml for rejected.yaml
cp sets/demo/set.yaml sets/demo/rejected.yaml
"$evalset" rm demo $(sed -n 's/^- id: \(q-[0-9]*\)$/\1/p' sets/demo/set.yaml) >/dev/null 2>err
is "$(count_q)" 0 "every question moved out of the set"
gen --kinds factoid --seed 2 >out 2>err
is "$?" 0 "generate after the review (new seed: new requests, same replies)"
is "$(count_q)" 0 "no rejected question is generated again"
rej=$(sed -n 's/.* \([0-9]*\) rejected in review before.*/\1/p' out)
is "${rej:-0}" "$kept" "every repeat counted as rejected in review"
stop_fake

# ---- filters: max-overlap ----
make_case overlap
start_fake
gen --kinds factoid --max-overlap 0.5 >out 2>err
is "$?" 0 "generate with --max-overlap"
over=$(sed -n 's/.* \([0-9]*\) over --max-overlap.*/\1/p' out)
ok $([ "${over:-0}" -gt 0 ] && echo 0 || echo 1) "too-lexical questions dropped ($over)"
stop_fake

# ---- 429 and 503 on first attempts: nothing lost, nothing duplicated ----
make_case flaky
start_fake --fault 429:0.3 --fault 503:0.3 --fault drop:0.1 --first-only --retry-after-ms 50
gen --kinds factoid,paraphrase >out 2>err
is "$?" 0 "generate through 429/503/drops succeeds"
is "$(ok_records)" 48 "every request answered and journaled"
is "$(stat_py 'max(d["answered"].values())')" 1 "no answered request sent again"
is "$(stat_py 'len(d["answered"])')" 48 "every request answered once"
stop_fake

# ---- kill -9 mid-run, then resume ----
make_case kill
start_fake --latency 150
gen_bg --kinds factoid,paraphrase --concurrency 4 >out 2>err
pid=$!
wait_records sets/demo/.evalset/generate.jsonl 10 50
kill -9 $pid; wait $pid 2>/dev/null
journaled=$(ok_records)
before=$(stat_py 'd["requests"]')
ok $([ "$journaled" -ge 10 ] && [ "$journaled" -lt 48 ] && echo 0 || echo 1) "killed mid-run ($journaled of 48 journaled)"
gen --kinds factoid,paraphrase --concurrency 4 >out 2>err
is "$?" 0 "resume succeeds"
after=$(stat_py 'd["requests"]')
is "$((after - before))" "$((48 - journaled))" "resume sends exactly the unjournaled requests"
is "$(ok_records)" 48 "all requests journaled after resume"
kq=$(count_q)
stop_fake
make_case nokill
start_fake --latency 0
gen --kinds factoid,paraphrase >/dev/null 2>&1
is "$kq" "$(count_q)" "resumed set holds as many questions as an uninterrupted run"
stop_fake

# ---- Ctrl-C: exit 130, resumable ----
make_case sigint
start_fake --latency 200
gen_bg --kinds factoid,paraphrase --concurrency 2 >out 2>err
pid=$!
sleep 1.2
kill -INT $pid; wait $pid
is "$?" 130 "interrupted run exits 130"
grep -q "resume" err; ok $? "message says how to resume"
gen --kinds factoid,paraphrase --concurrency 8 >out 2>err
is "$?" 0 "run after interrupt completes"
is "$(ok_records)" 48 "all requests journaled"
stop_fake

# ---- structured output ladder ----
make_case ladder
start_fake --reject-schema
gen --kinds factoid >out 2>err
is "$?" 0 "server without json_schema: still succeeds"
grep -q "structured output json_object" out; ok $? "fell back to json_object"
is "$(stat_py 'd["modes"].get("json_object", 0)')" 24 "every request answered in json_object mode"
stop_fake

# ---- truncated replies are recorded failures, not retried forever ----
make_case length
start_fake --fault length
gen --kinds factoid >out 2>err
is "$?" 0 "always-truncated replies: run completes"
grep -q "24 unusable" out; ok $? "truncated replies counted as unusable"
is "$(stat_py 'd["requests"]')" 48 "one retry with a larger budget each"
gen --kinds factoid >out 2>err
is "$(stat_py 'd["requests"]')" 48 "recorded failures are not re-sent"
stop_fake

# ---- auth, quota, not found: exit 3, a message that says what to fix, key never shown ----
make_case auth
start_fake --expect-key right-key
gen --kinds factoid >out 2>err
is "$?" 3 "401 exits 3"
grep -q "OPENAI_API_KEY" err; ok $? "message names the variable to fix"
! grep -rq "SENTINEL" out err sets/; ok $? "key appears in no output, set file or journal"
stop_fake
make_case quota
start_fake --fault quota --error-style flat
gen --kinds factoid >out 2>err
is "$?" 3 "insufficient_quota exits 3"
grep -q "quota" err; ok $? "message says quota"
is "$(stat_py 'max(d["keys"].values())')" 1 "quota errors not retried"
stop_fake
make_case notfound
start_fake --fault 404
gen --kinds factoid >out 2>err
is "$?" 3 "404 exits 3"
grep -q -- "--base-url" err; ok $? "message points at --base-url"
stop_fake

# ---- budget ----
make_case budget
start_fake
gen --kinds factoid --max-requests 5 --concurrency 2 >out 2>err
is "$?" 0 "budget run exits 0"
is "$(stat_py 'd["requests"]')" 5 "server saw exactly --max-requests"
grep -q "max-requests" err; ok $? "warning names the budget"
stop_fake

# ---- dry run ----
make_case dry
"$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" --kinds factoid,multi-hop --dry-run >out 2>err
is "$?" 0 "dry run exits 0"
grep -q "dry run: 48 generation requests" out; ok $? "dry run counts requests" "$(cat out)"
grep -q "prompt tokens" out; ok $? "dry run estimates prompt tokens"
[ ! -e sets/demo/.evalset/generate.jsonl ]; ok $? "dry run writes no journal"

# ---- a dry run counts every pass, and the run sends no more ----
make_case drypasses
start_fake
genq --kinds factoid,unanswerable --dry-run >dry 2>err
is "$?" 0 "dry run with the passes exits 0"
grep -q "then up to 24 critique requests" dry; ok $? "the critique pass is counted" "$(cat dry)"
grep -q "then up to 24 verification requests" dry; ok $? "the verification pass is counted"
est=$(sed -n 's/^in all up to \([0-9]*\) requests.*/\1/p' dry)
genq --kinds factoid,unanswerable >out 2>err
sent=$(stat_py 'd["requests"]')
ok $([ "$sent" -gt 48 ] && [ "$sent" -le "${est:-0}" ] && echo 0 || echo 1) \
	"the run sends more than the generation requests and at most the dry run's count ($sent of ${est:-?})"
genq --kinds factoid,unanswerable --no-critique --no-verify --dry-run >dry 2>err
grep -q "critique: off" dry && grep -q "verification: off" dry && grep -q "in all up to 0 requests" dry
ok $? "passes turned off are said so (a finished run leaves nothing to send)" "$(cat dry)"
stop_fake

# ---- batch out / batch in ----
make_case batch
"$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" --kinds factoid --batch-out batch.jsonl >out 2>err
is "$?" 0 "batch-out exits 0"
is "$(wc -l < batch.jsonl)" 24 "one batch line per request"
is "$(python3 -c 'import json; print(len({json.loads(l)["custom_id"] for l in open("batch.jsonl")}))')" 24 "custom_ids unique"
! grep -q SENTINEL batch.jsonl; ok $? "batch file holds no key"
python3 - <<'EOF'
import json
out = open("results.jsonl", "w"); errs = open("errors.jsonl", "w")
for i, line in enumerate(open("batch.jsonl")):
    r = json.loads(line)
    if i == 3:
        errs.write(json.dumps({"id": "b%d" % i, "custom_id": r["custom_id"], "response": {"status_code": 500, "body": {"error": {"message": "boom"}}}, "error": None}) + "\n")
        continue
    content = json.dumps({"questions": [{"question": "Which knob number %d controls zeta%d?" % (i, i), "answer": "knob %d" % i}]})
    body = {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
    out.write(json.dumps({"id": "b%d" % i, "custom_id": r["custom_id"], "response": {"status_code": 200, "request_id": "r", "body": body}, "error": None}) + "\n")
EOF
"$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" --kinds factoid --batch-in results.jsonl --batch-in errors.jsonl >out 2>err
is "$?" 0 "batch-in exits 0"
is "$(count_q)" 23 "batch results added through the filters"
grep -q "1 errors" out; ok $? "batch errors counted" "$(cat out)"
"$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" --kinds factoid --batch-out again.jsonl >/dev/null 2>&1
is "$(wc -l < again.jsonl)" 1 "a new batch holds only the unanswered request"

# ---- shards partition the chunks ----
make_case shard
start_fake
gen --kinds factoid --shard 1/3 >/dev/null 2>&1 && a=$(count_q)
mv sets/demo/set.yaml s1.yaml; rm -rf sets/demo/.evalset; cp s1.yaml sets/demo/set.yaml
python3 - <<'EOF'
open("sets/demo/set.yaml", "w").write("evalset: 1\nname: demo\ncorpus:\n  path: chunks.jsonl\nquestions: []\n")
EOF
gen --kinds factoid --shard 2/3 >/dev/null 2>&1
mv sets/demo/set.yaml s2.yaml; rm -rf sets/demo/.evalset
python3 - <<'EOF'
open("sets/demo/set.yaml", "w").write("evalset: 1\nname: demo\ncorpus:\n  path: chunks.jsonl\nquestions: []\n")
EOF
gen --kinds factoid --shard 3/3 >/dev/null 2>&1
cp sets/demo/set.yaml s3.yaml
chunks=$(cat s1.yaml s2.yaml s3.yaml | sed -n 's/^    chunk: //p' | sort)
is "$(echo "$chunks" | wc -l)" 24 "three shards cover the 24 chunks"
is "$(echo "$chunks" | sort -u | wc -l)" 24 "and no chunk twice"
stop_fake

# ---- two shards generated into their own sets, merged with add --from --new-ids ----
make_case merge
start_fake
for i in 1 2; do
	"$evalset" init "part$i" --corpus chunks.jsonl >/dev/null
	"$evalset" generate "part$i" --corpus chunks.jsonl --model fake-1 --base-url "$BASE" \
		--prompt-dir "$src/prompts" --kinds factoid,paraphrase --shard "$i/2" >/dev/null 2>&1
	ok $? "shard $i/2 generates into its own set"
done
n1=$(grep -c '^- id: q-' sets/part1/set.yaml); n2=$(grep -c '^- id: q-' sets/part2/set.yaml)
grep -q '^- id: q-0001' sets/part2/set.yaml; ok $? "both shards number from q-0001"
"$evalset" add demo --from sets/part1/set.yaml --new-ids >out 2>err
is "$?" 0 "first shard merges"
"$evalset" add demo --from sets/part2/set.yaml --new-ids >out 2>err
is "$?" 0 "second shard merges despite overlapping ids" "$(cat err)"
grep -q "^$n2 added, 0 skipped as duplicates" out; ok $? "merge reports its counts" "$(tail -1 out)"
is "$(count_q)" "$((n1 + n2))" "merged set holds every question of both shards"
is "$(sed -n 's/^- id: //p' sets/demo/set.yaml | sort | uniq -d | wc -l)" 0 "no id twice"
chunks=$(cat sets/part1/set.yaml sets/part2/set.yaml | sed -n 's/^    chunk: //p' | sort | uniq -c)
is "$(sed -n 's/^    chunk: //p' sets/demo/set.yaml | sort | uniq -c)" "$chunks" "every chunk's questions present once"
"$evalset" add demo --from sets/part1/set.yaml --new-ids >out 2>err
is "$?" 0 "merging a shard again succeeds"
grep -q "^0 added, $n1 skipped as duplicates" out; ok $? "a shard merged twice adds nothing" "$(tail -1 out)"
is "$(count_q)" "$((n1 + n2))" "no duplicate after the second merge"
"$evalset" add demo --from sets/part2/set.yaml >out 2>err
is "$?" 2 "without --new-ids, overlapping ids are refused"
stop_fake

# ---- max_tokens refused (newer OpenAI models): asked again with max_completion_tokens ----
make_case mct
start_fake --reject-max-tokens
gen --kinds factoid >out 2>err
is "$?" 0 "server refusing max_tokens: still succeeds" "$(cat err)"
grep -q "max_completion_tokens" err; ok $? "a note says max_completion_tokens is used"
is "$(stat_py 'd["token_params"].get("max_completion_tokens", 0)')" 24 "every request answered with max_completion_tokens"
is "$(stat_py 'max(d["keys"].values())')" 2 "each request refused at most once"
is "$(ok_records)" 24 "every request journaled"
stop_fake

# ---- --temperature is sent only when given ----
make_case temp
start_fake
gen --kinds factoid --chunks c-00,c-01 >out 2>err
is "$?" 0 "generate --chunks succeeds"
is "$(stat_py 'd["temperatures"]')" "{'none': 2}" "no temperature sent by default"
gen --kinds factoid --chunks c-02 --temperature 0.3 >out 2>err
is "$(stat_py 'd["temperatures"].get("0.3", 0)')" 1 "--temperature 0.3 is sent"
gen --kinds factoid --chunks c-03 --temperature 3 >out 2>err
is "$?" 2 "--temperature out of range is bad input"
stop_fake

# ---- an endpoint nobody listens on: exit 3 at once, the base URL named, the key not ----
make_case dead
dead_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
"$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "http://127.0.0.1:$dead_port/v1" \
	--prompt-dir "$src/prompts" --kinds factoid --max-attempts 100 >out 2>err
is "$?" 3 "unreachable endpoint exits 3"
grep -q "cannot reach the endpoint 'http://127.0.0.1:$dead_port/v1'" err; ok $? "message names the base URL" "$(cat err)"
grep -q "check --base-url" err; ok $? "message says what to check"
grep -q "first 3 attempts" err; ok $? "stopped after the first attempts, not after the retries"
! grep -q SENTINEL err; ok $? "message holds no key"

# ---- the endpoint goes away mid-job: transient, retried, not the unreachable stop ----
make_case gone
start_fake --latency 100
gen_bg --kinds factoid,paraphrase --concurrency 2 --max-attempts 2 >out 2>err
pid=$!
wait_records sets/demo/.evalset/generate.jsonl 4 50
stop_fake
wait $pid
is "$?" 3 "endpoint gone after successes: exit 3 after the retries"
! grep -q "first 3 attempts" err; ok $? "not stopped as unreachable once requests had succeeded" "$(cat err)"
grep -q "failed after retries" err; ok $? "failed requests counted, to be retried by a rerun" "$(cat err)"

# ---- a 200 whose body is an error object or not JSON is a failed attempt, never a result ----
unusable_records() { grep -c '"status":"unusable"' sets/demo/.evalset/generate.jsonl 2>/dev/null; }
make_case error200
start_fake --fault error200 --first-only
gen --kinds factoid >out 2>err
is "$?" 0 "200 with an error object on first attempts: retried, exit 0" "$(cat err)"
is "$(ok_records)" 24 "every request answered on its retry"
is "$(unusable_records)" 0 "no error body journaled as a reply"
is "$(stat_py 'd["requests"]')" 48 "one retry each"
stop_fake
make_case html200
start_fake --fault html200
gen --kinds factoid --max-attempts 2 >out 2>err
is "$?" 3 "200 with an HTML page on every attempt: exit 3"
grep -q "not a chat completion (not a JSON object)" err; ok $? "the message says what came back" "$(cat err)"
grep -q "proxy or gateway" err; ok $? "and what to check"
is "$(unusable_records)" 0 "nothing journaled"
stop_fake
make_case error200-some
start_fake --fault error200:0.4 --seed 7
gen --kinds factoid --max-attempts 2 --concurrency 4 >out 2>err
is "$?" 3 "some requests got only error bodies: exit 3" "$(cat out err)"
is "$(unusable_records)" 0 "none of them journaled as unusable"
before=$(ok_records)
stop_fake
start_fake
gen --kinds factoid >out 2>err
is "$?" 0 "rerun against a healthy endpoint"
is "$(stat_py 'd["requests"]')" $((24 - before)) "the rerun asks exactly the requests that got no chat completion"
is "$(ok_records)" 24 "all answered now"
stop_fake

# ---- a stalled transfer is aborted (--stall-timeout) and retried ----
make_case stall
start_fake --fault stall --first-only --stall-seconds 60
t0=$(date +%s)
gen --kinds factoid --concurrency 24 --stall-timeout 1 >out 2>err
rc=$?; t1=$(date +%s)
is "$rc" 0 "every first attempt stalls after 10 bytes: aborted, retried, exit 0" "$(cat err)"
is "$(ok_records)" 24 "every request answered"
ok $([ $((t1 - t0)) -lt 20 ] && echo 0 || echo 1) "the stalls cost seconds, not minutes ($((t1 - t0))s)"
grep -q "24 attempts timed out or stalled" out; ok $? "the summary counts the stalled attempts" "$(tail -1 out)"
stop_fake

# ---- a silent server: --request-deadline bounds one request, retries included ----
make_case silent
start_fake --fault silent --stall-seconds 60
t0=$(date +%s)
gen --kinds factoid --chunks c-00 --request-deadline 2s --stall-timeout 0 --max-attempts 100 >out 2>err
rc=$?; t1=$(date +%s)
is "$rc" 3 "a server that never answers: exit 3"
ok $([ $((t1 - t0)) -lt 10 ] && echo 0 || echo 1) "given up at the request deadline ($((t1 - t0))s)"
grep -q "request deadline passed\|timed out" err; ok $? "the message says it timed out" "$(cat err)"
gen --kinds factoid --request-deadline soon >out 2>err
is "$?" 2 "a bad duration is bad usage"
stop_fake

# ---- --deadline stops the job cleanly; the journal is kept and a rerun resumes ----
make_case deadline
start_fake --latency 400
gen --kinds factoid --concurrency 2 --deadline 2s >out 2>err
is "$?" 3 "a job past its --deadline exits 3"
grep -q "stopped at --deadline 2s" err; ok $? "the message names the deadline" "$(cat err)"
grep -q "run the same command to resume" err; ok $? "and says how to resume"
before=$(ok_records)
ok $([ "$before" -gt 0 ] && [ "$before" -lt 24 ] && echo 0 || echo 1) "answers before the deadline journaled ($before)"
is "$(count_q)" "$before" "and saved in the set"
gen --kinds factoid --concurrency 8 >out 2>err
is "$?" 0 "the rerun finishes"
grep -q "$before already answered" out; ok $? "the rerun does not ask again what was answered" "$(head -2 out)"
is "$(ok_records)" 24 "every request answered once"
is "$(sed -n 's/.*"key":"\([^"]*\)".*/\1/p' sets/demo/.evalset/generate.jsonl | sort | uniq -d | wc -l)" 0 "no key journaled twice"
stop_fake

# ---- the time limits as project defaults: evalset.yaml, then the environment, then the flag ----
make_case deadline-config
start_fake --latency 400
printf 'deadline: 2s\n' > evalset.yaml
gen --kinds factoid --concurrency 2 >out 2>err
is "$?" 3 "evalset.yaml's deadline stops the job (exit 3)"
grep -q "stopped at --deadline 2s" err; ok $? "the message names it" "$(cat err)"
before=$(ok_records)
EVALSET_DEADLINE=1s gen --kinds factoid --concurrency 2 >out 2>err
is "$?" 3 "\$EVALSET_DEADLINE beats the config"
grep -q "stopped at --deadline 1s" err; ok $? "the message names the environment's" "$(cat err)"
EVALSET_DEADLINE=1s gen --kinds factoid --concurrency 8 --deadline 1h >out 2>err
is "$?" 0 "the flag beats both: the job finishes" "$(tail -2 err)"
is "$(ok_records)" 24 "every request answered"
stop_fake
make_case limits-config
start_fake --fault silent --stall-seconds 60
printf 'request_deadline: 2s\nstall_timeout: 0\n' > evalset.yaml
t0=$(date +%s)
gen --kinds factoid --chunks c-00 --max-attempts 100 >out 2>err
rc=$?; t1=$(date +%s)
is "$rc" 3 "evalset.yaml's request_deadline gives up on a silent server (exit 3)"
ok $([ $((t1 - t0)) -lt 10 ] && echo 0 || echo 1) "at the request deadline ($((t1 - t0))s)"
"$evalset" config | grep -q "^request_deadline *2s *config evalset.yaml:1"; ok $? "evalset config shows where it came from" "$("$evalset" config)"
printf 'stall_timeout: 2 minutes\n' > evalset.yaml
gen --kinds factoid >out 2>err
is "$?" 2 "a duration that does not parse in evalset.yaml: exit 2"
grep -q "evalset.yaml:1:16: 'stall_timeout' must be a duration" err; ok $? "naming FILE:LINE:COL" "$(cat err)"
rm evalset.yaml
EVALSET_STALL_TIMEOUT=forever gen --kinds factoid >out 2>err
is "$?" 2 "one in the environment: exit 2"
grep -q "EVALSET_STALL_TIMEOUT" err; ok $? "naming the variable" "$(cat err)"
stop_fake

# ---- --retry-failed asks again only the requests whose reply was unusable ----
make_case retry-failed
start_fake --fault invalid
gen --kinds factoid --chunks c-00,c-01,c-02 >out 2>err
is "$(unusable_records)" 3 "replies of the wrong shape journaled as unusable"
stop_fake
start_fake
gen --kinds factoid >out 2>err
is "$(stat_py 'd["requests"]')" 21 "without --retry-failed the unusable ones are not asked again"
grep -q "unusable before: 3 requests, not asked again without --retry-failed" out; ok $? "the summary says so" "$(cat out)"
gen --kinds factoid --retry-failed >out 2>err
is "$?" 0 "--retry-failed succeeds"
is "$(stat_py 'd["requests"]')" 24 "--retry-failed asks exactly the 3 unusable requests"
is "$(ok_records)" 24 "now answered"
gen --kinds factoid --retry-failed >out 2>err
is "$(stat_py 'd["requests"]')" 24 "an answered request is never asked again, even with --retry-failed"
stop_fake

# ---- the key never reaches any file of any case (sets, journals, outputs, batches) ----
cd "$root" || exit 1
! grep -rq "SENTINEL" "$root"; ok $? "no file written by any case holds the API key"

echo "1..$n"
[ "$failed" -eq 0 ]
