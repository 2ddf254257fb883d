#!/usr/bin/env bash
# End-to-end tests of `evalset generate` against tests/fakes/fake_llm.py,
# printing TAP. Each case starts its own fake server (a coprocess that exits
# when this script closes its stdin or exits) and a scratch directory.
#
# usage: t-generate.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"

# A corpus of 24 chunks in 6 documents, distinct words per chunk.
make_case() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	python3 - <<'EOF'
import json, random
random.seed(5)
vocab = ["w%03d" % i for i in range(400)]
with open("chunks.jsonl", "w") as f:
    for i in range(24):
        words = random.sample(vocab, 30)
        f.write(json.dumps({"id": "c-%02d" % i, "doc": "d%d" % (i // 4), "title": "Doc %d" % (i // 4),
                            "text": "Setting " + " ".join(words) + "."}) + "\n")
EOF
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
}
# gen and gen_bg test generation alone (request counts are exact); genq and
# genq_bg run the critique and verification passes too, as a user gets them
gen_bg() { ( exec "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --no-critique --no-verify "$@" ) & }
gen() { "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --no-critique --no-verify "$@"; }
genq_bg() { ( exec "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" "$@" ) & }
genq() { "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" "$@"; }
count_q() { grep -c '^- id: q-' sets/demo/set.yaml; }
ok_records() { grep -c '"status":"ok"' sets/demo/.evalset/generate.jsonl; }

export OPENAI_API_KEY=sk-SENTINEL-7f3a9c

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
for i in $(seq 50); do
	[ -f sets/demo/.evalset/generate.jsonl ] && [ "$(grep -c '"status"' sets/demo/.evalset/generate.jsonl)" -ge 10 ] && break
	sleep 0.1
done
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
grep -q "dry run: 48 requests" out; ok $? "dry run counts requests" "$(cat out)"
grep -q "prompt tokens" out; ok $? "dry run estimates prompt tokens"
[ ! -e sets/demo/.evalset/generate.jsonl ]; ok $? "dry run writes no journal"

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
for i in $(seq 50); do
	[ -f sets/demo/.evalset/generate.jsonl ] && [ "$(grep -c '"status"' sets/demo/.evalset/generate.jsonl)" -ge 4 ] && break
	sleep 0.1
done
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

# ---- a German corpus: prompts ask for German, a reply in English is dropped ----
w="$root/german"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
python3 - <<'EOF'
import json
words = ["Rechnung", "Konto", "Passwort", "Drucker", "Server", "Lizenz"]
with open("chunks.jsonl", "w") as f:
    for i, word in enumerate(words):
        extra = " WRITE-IN-ENGLISH" if i == 5 else ""
        f.write(json.dumps({"id": "c-%02d" % i, "doc": "d%d" % i,
                            "text": "Die %s wird mit der Option Verwaltung%d und dem Schalter Konsole%d "
                                    "eingestellt, wenn sie nicht mehr funktioniert%s." % (word, i, i, extra)},
                           ensure_ascii=False) + "\n")
EOF
"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
start_fake
gen --kinds factoid --batch-out batch.jsonl >out 2>err
[ "$(grep -c 'Language of the questions: German' batch.jsonl)" = 6 ] && grep -q "answer in German" batch.jsonl
ok $? "the prompts ask for the corpus's language (German, detected)" "$(head -c 600 batch.jsonl)"
gen --kinds factoid >out 2>err
is "$?" 0 "generate on a German corpus succeeds"
grep -q "dropped: 0 empty, 0 too long, 1 in another language" out
ok $? "the reply in English is dropped and counted" "$(cat out err)"
is "$(count_q)" 5 "the five German questions are kept"
grep -q "Welche\|Wie kann\|Warum\|Wo wird" sets/demo/set.yaml && ! grep -q "Which\|How can\|Why would\|Where do" sets/demo/set.yaml
ok $? "the kept questions are the German ones"
gen --kinds paraphrase --question-language en >out 2>err
is "$?" 0 "a cross-lingual run (--question-language en) succeeds"
grep -q "dropped: 0 empty, 0 too long, 0 in another language" out
ok $? "English questions about German chunks are kept" "$(cat out err)"
is "$(grep -c '^  language: en' sets/demo/set.yaml)" 6 "and each records its language"
stop_fake

# ---- questions that refer to their source, in several languages, are dropped and counted ----
w="$root/selfref"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
python3 - <<'EOF'
import json
chunks = [
    ("en-1", "The proxy listens on port 8080 by default and forwards every request to the upstream server."),
    ("en-2", "When the proxy cannot reach the upstream server it retries three times before giving up."),
    ("en-3", "The access log of the proxy records the client address and the status of each request."),
    ("de-1", "Die Rechnung wird am Monatsende erstellt und an die Adresse des Kontos geschickt, wenn sie fertig ist."),
    ("de-2", "Das Konto kann jederzeit gekündigt werden, und die Daten werden nach dreißig Tagen gelöscht."),
    ("fr-1", "Le serveur mandataire écoute sur le port 8080 et transmet chaque requête au serveur principal."),
    ("ja-1", "プロキシは既定でポート8080で待ち受け、すべての要求を上流のサーバーに転送します。"),
    ("ru-1", "Прокси-сервер по умолчанию слушает порт 8080 и передаёт все запросы на основной сервер."),
    ("es-1", "El proxy escucha en el puerto 8080 y reenvía cada solicitud al servidor principal."),
]
script = {
    "port 8080 by default": ["According to the passage, which port does the proxy use?"],
    "retries three times": ["Title: Upstream errors - how many retries?"],
    "access log": ["Does the access log record the client address?"],
    "Monatsende": ["Wann wird laut dem Text die Rechnung erstellt?"],
    "gekündigt": ["Wann werden die Daten nach einer Kündigung gelöscht?"],
    "mandataire": ["Selon le texte, sur quel port écoute le serveur ?"],
    "プロキシ": ["この文章によると、プロキシのポートは何番ですか？"],
    "Прокси": ["Согласно тексту, какой порт слушает прокси?"],
    "reenvía": ["¿En qué puerto escucha el proxy?"],
}
with open("chunks.jsonl", "w") as f:
    for cid, text in chunks:
        f.write(json.dumps({"id": cid, "doc": cid, "text": text}, ensure_ascii=False) + "\n")
json.dump(script, open("script.json", "w"), ensure_ascii=False)
EOF
"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
start_fake --questions script.json
gen --kinds factoid --max-copied 2 >out 2>err
is "$?" 0 "generate with source-referring replies succeeds" "$(cat err)"
grep -q "9 proposed, 3 kept" out; ok $? "three of nine questions kept" "$(cat out)"
grep -q "6 referring to the source" out; ok $? "six source references (en x2, de, fr, ja, ru) dropped and counted" "$(cat out)"
grep -q "0 in another language" out; ok $? "each reply was in its chunk's language" "$(cat out)"
for q in "access log record" "Daten nach einer" "qué puerto"; do
	grep -q "$q" sets/demo/set.yaml; ok $? "kept: $q"
done
! grep -qi "passage\|Title:\|laut dem Text\|Selon le texte\|この文章\|Согласно" sets/demo/set.yaml; ok $? "no kept question refers to its source"
stop_fake

# ---- difficulty: the BM25 rank of each question's chunk, the bands, --difficulty ----
make_case difficulty
start_fake
gen --kinds factoid,paraphrase,multi-hop >out 2>err
is "$?" 0 "generate records difficulty"
"$evalset" run demo --corpus chunks.jsonl -k 100 -o run.jsonl 2>err
python3 - <<'EOF' >check.txt
import json, re
runs = {}
for line in open("run.jsonl"):
    r = json.loads(line)
    if "qid" in r:
        runs[r["qid"]] = [h["id"] if isinstance(h, dict) else h for h in r["results"]]
text = open("sets/demo/set.yaml").read()
bad, n, bands = 0, 0, {"easy": 0, "medium": 0, "hard": 0}
for block in text.split("\n- id: ")[1:]:
    qid = block.split("\n")[0]
    rel = re.search(r"relevant: \[([^\]]*)\]", block).group(1).split(", ")
    m = re.search(r"bm25_rank: (\d+)", block)
    ranks = [runs[qid].index(c) + 1 if c in runs[qid] else 0 for c in rel]
    want = 0 if 0 in ranks else max(ranks)
    got = int(m.group(1)) if m else 0
    band = re.search(r"difficulty: (\w+)", block).group(1)
    wantband = "easy" if want == 1 else "medium" if 2 <= want <= 10 else "hard"
    bands[band] += 1
    n += 1
    if got != want or band != wantband:
        bad += 1
print(n, bad, bands["easy"], bands["medium"], bands["hard"])
EOF
read -r nq bad easy medium hard < check.txt
is "$bad" 0 "every bm25_rank and band matches 'evalset run' on the same question ($nq questions)"
grep -q "difficulty of kept answerable questions (BM25 rank of their chunk): $easy easy (rank 1), $medium medium (2-10), $hard hard (beyond 10)" out
ok $? "the summary shows the easy/medium/hard mix ($easy/$medium/$hard)" "$(grep difficulty out)"
ok $([ "$hard" -gt 0 ] && [ "$easy" -gt 0 ] && echo 0 || echo 1) "the case has both easy and hard questions"
make_case difficulty-hard
gen --kinds factoid,paraphrase,multi-hop --difficulty hard >out 2>err
is "$?" 0 "generate --difficulty hard"
is "$(count_q)" "$hard" "--difficulty hard keeps exactly the hard questions"
is "$(grep -c '^    difficulty: hard' sets/demo/set.yaml)" "$hard" "and every one is hard"
grep -q "dropped: $((easy + medium)) outside --difficulty" out; ok $? "the others are counted" "$(grep outside out)"
gen --kinds factoid --difficulty extreme >out 2>err
is "$?" 2 "an unknown band is bad input"
stop_fake

# a small product corpus with scripted questions, for the passes after generation
make_proxy() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	python3 - <<'EOF'
import json
chunks = [
    ("port", "The proxy listens on port 8080 by default; set listen_port in proxy.toml to change it."),
    ("retry", "When the upstream server fails, the proxy retries the request three times with a backoff of two seconds."),
    ("log", "The access log records the client address, the method, the path and the status of every request."),
    ("tls", "TLS certificates are read from the certs directory at start and reloaded when the files change."),
    ("auth", "Basic authentication is enabled with the auth section; passwords are stored as bcrypt hashes."),
    ("cache", "Responses with a Cache-Control max-age are cached in memory up to the cache_size limit of 256 MB."),
    ("limit", "Each client may send at most 100 requests per second; the rate limit answers 429 beyond that."),
    ("health", "The health endpoint /healthz answers 200 while the proxy can reach at least one upstream server."),
]
script = {
    "port 8080": ["How do I change the port the proxy listens on?"],
    "three times": ["How many times does the proxy retry a failed upstream request?"],
    "access log": ["What is logged for each request?"],
    "certs directory": ["Which of the following statements about certificate reloading is true?"],
    "bcrypt": ["How is it stored?"],
    "max-age": ["What is the proxy?"],
    "100 requests": ["What happens when a client sends too many requests per second?"],
    "/healthz": ["When does the health check endpoint answer 200?"],
}
critique = {
    "Which of the following": {"realism": 1},
    "How is it stored": {"clarity": 2, "answerability": 2},
    "What is the proxy": {"specificity": 1},
}
with open("chunks.jsonl", "w") as f:
    for cid, text in chunks:
        f.write(json.dumps({"id": cid, "doc": cid, "title": "Proxy guide", "text": text}) + "\n")
json.dump(script, open("script.json", "w"))
json.dump(critique, open("critique.json", "w"))
# unanswerable questions, two of which the corpus does answer
json.dump({
    "port 8080": ["Can the proxy listen on a Unix socket?"],
    "three times": ["What is the maximum number of retries of a failed upstream request?"],
    "access log": ["Can the access log be written as JSON?"],
    "certs directory": ["Does the proxy support OCSP stapling?"],
    "bcrypt": ["Can users sign in with SAML?"],
    "max-age": ["How large can the in-memory response cache grow?"],
    "100 requests": ["Can the rate limit be set per API key?"],
    "/healthz": ["Is there a metrics endpoint for Prometheus?"],
}, open("unanswerable.json", "w"))
json.dump({"maximum number of retries": "retries the request three times",
           "in-memory response cache grow": "cache_size limit"}, open("answers.json", "w"))
EOF
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
}

# ---- critique: weak questions dropped per reason, scores kept in provenance ----
make_proxy critique
start_fake --questions script.json --critique critique.json
genq --kinds factoid --max-copied 2 >out 2>err
is "$?" 0 "generate with the critique pass" "$(cat err)"
is "$(count_q)" 5 "three weak questions of eight dropped"
grep -q "critique: 8 questions, 0 rated before, 8 rated now, 0 unusable, 0 failed, 0 not sent; 8 rated, 3 dropped (1 clarity, 1 realism, 1 answerability, 1 specificity under 3)" out
ok $? "the summary counts the drops per criterion" "$(grep critique: out)"
grep -q "realism       1: 1  2: 0  3: 0  4: 7  5: 0  mean 3.62" out; ok $? "the summary shows the score distribution" "$(grep realism out)"
! grep -q "Which of the following\|How is it stored\|What is the proxy?" sets/demo/set.yaml; ok $? "the weak questions are gone"
is "$(grep -c '^      realism: 4' sets/demo/set.yaml)" 5 "every kept question carries provenance.critique"
grep -q "^    critique_by: critique@sha256:" sets/demo/set.yaml; ok $? "and the critique prompt's identity"
before=$(stat_py 'd["requests"]')
genq --kinds factoid --max-copied 2 >out 2>err
is "$(stat_py 'd["requests"]')" "$before" "a rerun asks nothing again"
# a new seed: new generation requests, the same replies; the three dropped
# questions come back from the generator, and the journal drops them again
genq --kinds factoid --max-copied 2 --seed 2 >out 2>err
is "$(stat_py 'd["requests"]')" "$((before + 8))" "a new seed asks the generator only"
grep -q "critique: 3 questions, 3 rated before, 0 rated now.* 3 dropped" out; ok $? "questions rated before are not rated again" "$(grep critique: out)"
is "$(count_q)" 5 "and stay out of the set"
stop_fake
make_proxy critique-off
start_fake --questions script.json --critique critique.json
genq --kinds factoid --max-copied 2 --no-critique >out 2>err
is "$(count_q)" 8 "--no-critique keeps every question"
is "$(stat_py 'd["requests"]')" 8 "and asks only the generation requests"
stop_fake
make_proxy critique-model
start_fake --questions script.json
genq --kinds factoid --max-copied 2 --critique-model judge-2 >out 2>err
is "$?" 0 "--critique-model"
is "$(grep -c '"model":"judge-2"' sets/demo/.evalset/critique.jsonl)" 8 "the critique is asked of the other model"
stop_fake

# ---- verified unanswerables: the ones the corpus answers are dropped, near misses recorded ----
make_proxy verify
start_fake --questions unanswerable.json --answers answers.json
genq --kinds unanswerable >out 2>err
is "$?" 0 "generate unanswerable questions with verification" "$(cat err)"
is "$(count_q)" 6 "two of eight unanswerables are answered by the corpus and dropped"
# "Can users sign in with SAML?" shares no term with the corpus: kept without asking
grep -q "verification: 8 questions, 0 checked before, 7 checked now.*dropped 2 unanswerable the corpus answers" out
ok $? "the summary counts them" "$(grep verification: out)"
! grep -q "maximum number of retries\|in-memory response cache" sets/demo/set.yaml; ok $? "the answered ones are gone"
is "$(grep -c '^      near_miss: ' sets/demo/set.yaml)" 5 "every kept unanswerable some chunk matched records its near miss"
is "$(grep -c '^      retriever: bm25' sets/demo/set.yaml)" 6 "checked against the BM25 chunks"
grep -q '^      checked: 0' sets/demo/set.yaml; ok $? "a question no chunk matches is kept without asking"
stop_fake
make_proxy verify-cmd
cat > retr.py <<'EOF'
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    # a retriever that always answers the same two chunks
    print(json.dumps({"qid": r["qid"], "results": [{"id": "retry", "score": 2}, {"id": "port", "score": 1}]}), flush=True)
EOF
start_fake --questions unanswerable.json --answers answers.json
genq --kinds unanswerable --retriever-cmd "python3 retr.py" >out 2>err
is "$?" 0 "verification with --retriever-cmd" "$(cat err)"
is "$(count_q)" 7 "the command's chunks decide: only the retry question is answered by them"
is "$(grep -c '^      checked: 2' sets/demo/set.yaml)" 7 "each checked against the command's two chunks"
stop_fake

# ---- personas, seed questions and style examples steer each chunk's request ----
make_proxy steer
batch() { "$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" --kinds factoid --batch-out "$@" >/dev/null 2>err; }
batch plain.jsonl
batch personas.jsonl --persona "a sysadmin in a hurry" --persona "a developer new to proxies"
is "$?" 0 "--persona with --batch-out"
python3 - <<'EOF' >check.txt
import json
lines = [json.loads(l) for l in open("personas.jsonl")]
users = [l["body"]["messages"][-1]["content"] for l in lines]
one = sum(1 for u in users if u.count("Ask as this user would:") == 1)
a = sum("a sysadmin in a hurry" in u for u in users)
b = sum("a developer new to proxies" in u for u in users)
plain = {json.loads(l)["custom_id"] for l in open("plain.jsonl")}
print(one, a, b, a + b, len(plain & {l["custom_id"] for l in lines}))
EOF
read -r one a b both same < check.txt
is "$one" 8 "every request names one persona"
ok $([ "$a" -ge 1 ] && [ "$b" -ge 1 ] && [ "$both" = 8 ] && echo 0 || echo 1) "both personas are used, spread over the chunks ($a and $b)"
is "$same" 0 "a persona makes a new request (journal key)"
batch personas2.jsonl --persona "a sysadmin in a hurry" --persona "a developer new to proxies"
cmp -s personas.jsonl personas2.jsonl; ok $? "the spread is deterministic"
printf 'how do I rotate TLS certificates without downtime\n# a comment\n\nwhy is my bcrypt login slow\n' > seeds.txt
batch seeds.jsonl --seed-questions seeds.txt
python3 - <<'EOF' >check.txt
import json
for l in open("seeds.jsonl"):
    r = json.loads(l); u = r["body"]["messages"][-1]["content"]
    c = u.split("<chunk>")[1]
    print(("tls" if "certs directory" in c else "auth" if "bcrypt" in c else "other"),
          int("rotate TLS certificates" in u), int("bcrypt login" in u))
EOF
is "$(grep -c '^tls 1 0' check.txt)" 1 "the TLS chunk gets the TLS seed question"
is "$(grep -c '^auth 0 1' check.txt)" 1 "the auth chunk gets the bcrypt one"
is "$(grep -c '^other 0 0' check.txt)" 6 "chunks sharing no term with a seed get none"
printf 'nothing here\n' > /dev/null
: > empty.txt
batch x.jsonl --seed-questions empty.txt
is "$?" 2 "an empty seed file is bad input"
grep -q "empty.txt' holds no seed questions" err; ok $? "and says so" "$(cat err)"
for q in "proxy port??" "how to turn on basic auth" "cache size max" "why 429 rate limit"; do
	"$evalset" add demo --text "$q" --unanswerable --origin mined >/dev/null
done
batch style.jsonl --style-from origin=mined
is "$?" 0 "--style-from origin=mined"
python3 - <<'EOF' >check.txt
import json
n = 0
for l in open("style.jsonl"):
    u = json.loads(l)["body"]["messages"][-1]["content"]
    part = u.split("Real queries of this product's users")[1] if "Real queries of this product's users" in u else ""
    n += part.count("\n- ") == 3
print(n)
EOF
is "$(cat check.txt)" 8 "every request shows three real queries as examples"
grep -q 'cache size max' style.jsonl; ok $? "the examples are the mined questions"
batch y.jsonl --style-from origin=nothing
is "$?" 2 "a filter no question matches is bad input"
batch y.jsonl --style-from colour=blue
is "$?" 2 "an unknown filter key is bad input"
start_fake --questions script.json
genq --kinds factoid --max-copied 2 --persona "a sysadmin in a hurry" --style-from origin=mined >out 2>err
is "$?" 0 "a live run with a persona and style examples" "$(cat err)"
is "$(grep -c '^    persona: a sysadmin in a hurry' sets/demo/set.yaml)" 8 "each question records its persona"
grep -q "^realism gap: synthetic questions against 4 real queries (--style-from origin=mined)" out
ok $? "the summary shows the realism gap" "$(cat out)"
grep -q "^  questions  *4  *0  *8 " out; ok $? "real, synthetic before and new side by side" "$(grep '^  questions' out)"
grep -q "^  length vs real .*KS D" out; ok $? "with the two-sample statistic" "$(grep 'vs real' out)"
stop_fake

# ---- cross-document multi-hop: pairs sharing rare terms; one chunk answering alone is dropped ----
make_proxy multihop
python3 - <<'EOF'
import json
json.dump({
    "port 8080": ["Which port does the proxy listen on when a client hits the rate limit?"],
    "three times": ["How long does the proxy wait between upstream retries while the health check fails?"],
    "access log": ["Does the access log show requests rejected by the rate limit?"],
    "certs directory": ["Are TLS certificates reloaded when basic authentication changes?"],
    "bcrypt": ["Which hash protects passwords of clients behind the cache?"],
    "max-age": ["How big can the cache grow for responses to authenticated clients?"],
    "100 requests": ["What status does the proxy answer beyond 100 requests per second from one address?"],
    "/healthz": ["When does /healthz answer 200 during upstream retries?"],
}, open("mh.json", "w"))
# two of them are answered by one of their chunks alone
json.dump({"Which port does the proxy listen on": "port 8080",
           "How big can the cache grow": "cache_size limit of 256 MB"}, open("mh-answers.json", "w"))
EOF
start_fake --questions mh.json --answers mh-answers.json
genq --kinds multi-hop --max-copied 2 >out 2>err
is "$?" 0 "generate cross-document multi-hop questions" "$(cat err)"
planned=$(sed -n 's/.*requests: \([0-9]*\) planned.*/\1/p' out)
ok $([ "${planned:-0}" -ge 6 ] && echo 0 || echo 1) "most chunks find a partner in another document ($planned of 8)"
grep -q "dropped 0 unanswerable the corpus answers, 2 multi-hop one chunk answers" out; ok $? "the two answered by one chunk are dropped and counted" "$(grep verification: out)"
is "$(count_q)" "$((planned - 2))" "the others are kept"
! grep -q "Which port does the proxy listen on\|How big can the cache grow" sets/demo/set.yaml; ok $? "the dropped ones are gone"
python3 - <<'EOF' >check.txt
import re
text = open("sets/demo/set.yaml").read()
bad = 0
blocks = text.split("\n- id: ")[1:]
for b in blocks:
    rel = re.search(r"relevant: \[([^\]]*)\]", b).group(1).split(", ")
    bad += len(rel) != 2 or rel[0] == rel[1] or "checked: 2" not in b or "neighbour: " not in b
print(len(blocks), bad)
EOF
read -r nmh bad < check.txt
is "$bad" 0 "each kept multi-hop question labels both chunks (two documents) and was checked against both"
stop_fake

# ---- critique and verification: kill -9 mid-pass, resume without asking again ----
for spec in critique:factoid verify:unanswerable verify:multi-hop; do
	pass=${spec%%:*} kinds=${spec#*:}
	make_case "kill-$pass-$kinds"
	start_fake --latency 150
	genq_bg --kinds $kinds --concurrency 4 --max-copied 2 >out 2>err
	pid=$!
	for i in $(seq 100); do
		[ -f sets/demo/.evalset/$pass.jsonl ] && [ "$(grep -c '"status"' sets/demo/.evalset/$pass.jsonl)" -ge 5 ] && break
		sleep 0.1
	done
	kill -9 $pid; wait $pid 2>/dev/null
	journaled=$(grep -c '"status":"ok"' sets/demo/.evalset/$pass.jsonl)
	before=$(stat_py 'd["requests"]')
	ok $([ "$journaled" -ge 5 ] && [ "$journaled" -lt 24 ] && echo 0 || echo 1) "$kinds $pass: killed mid-pass ($journaled of 24 journaled)"
	genq --kinds $kinds --concurrency 4 --max-copied 2 >out 2>err
	is "$?" 0 "$pass: resume succeeds" "$(cat err)"
	after=$(stat_py 'd["requests"]')
	is "$((after - before))" "$((24 - journaled))" "$pass: resume sends exactly the unjournaled requests"
	is "$(grep -o '"key":"[^"]*"' sets/demo/.evalset/$pass.jsonl | sort | uniq -d | wc -l)" 0 "$pass: no request journaled twice"
	if [ $pass = critique ]; then
		is "$(grep -c '^    critique:' sets/demo/set.yaml)" 24 "critique: every question rated after the resume"
	else
		is "$(grep -c '^    verification:' sets/demo/set.yaml)" 24 "verify: every question verified after the resume"
	fi
	is "$(count_q)" 24 "$pass: nothing lost, nothing twice"
	stop_fake
done

# ---- evidence: each question records the quote it is grounded in and its span ----
w="$root/evidence"; rm -rf "$w"; mkdir -p "$w/docs"; cd "$w" || exit 1
python3 - <<'EOF'
import random
random.seed(7)
vocab = ["w%03d" % i for i in range(400)]
for d in range(3):
    with open("docs/page%d.md" % d, "w") as f:
        f.write("# Page %d\n\n" % d)
        for p in range(4):
            sents = [" ".join(random.sample(vocab, 8)).capitalize() + "." for _ in range(3)]
            if d == 2 and p == 3:
                sents[0] = "QUOTE-ELSEWHERE " + sents[0]
            f.write(" ".join(sents) + "\n\n")
EOF
"$evalset" chunk --by paragraphs -o chunks.jsonl docs >/dev/null
"$evalset" init demo --corpus chunks.jsonl >/dev/null
start_fake
gen --kinds factoid,unanswerable >out 2>err
is "$?" 0 "generate on a corpus with spans succeeds"
for id in $(sed -n 's/^- id: //p' sets/demo/set.yaml); do "$evalset" show demo "$id" --format json; echo; done > questions.jsonl
python3 - questions.jsonl chunks.jsonl docs > ev.out <<'EOF'
import json, sys
chunks = {c["id"]: c for c in map(json.loads, open(sys.argv[2]))}
quoted = spanned = bad = unanswerable_ev = dropped = 0
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    q = json.loads(line)
    ev = q.get("evidence") or []
    if q.get("answerable") is False:
        unanswerable_ev += len(ev)
        continue
    if len(ev) != 1:
        bad += 1
        continue
    e = ev[0]
    c = chunks[e["chunk"]]
    doc = open(sys.argv[3] + "/" + e["doc"], encoding="utf-8").read()
    if "quote" in e:
        # the quote stands in the document at its span, inside its chunk
        quoted += doc[e["start"]:e["end"]] == e["quote"] and c["start"] <= e["start"] and e["end"] <= c["end"]
    else:
        spanned += (e["start"], e["end"]) == (c["start"], c["end"])
        dropped += q.get("provenance", {}).get("quote") == "not in the chunk: dropped"
print(quoted, spanned, dropped, bad, unanswerable_ev)
EOF
read quoted spanned dropped bad unev < ev.out
ok $([ "${quoted:-0}" -ge 10 ] && echo 0 || echo 1) "answerable questions record a quote found verbatim at its span in the document ($quoted)"
ok $([ "${spanned:-0}" -ge 1 ] && [ "$spanned" = "$dropped" ] && echo 0 || echo 1) "a quote the chunk does not hold is dropped: the chunk's span is the evidence, provenance says so ($spanned, $dropped)"
is "$bad $unev" "0 0" "every answerable question has one evidence entry, unanswerable ones none"
"$evalset" check demo >/dev/null 2>&1
ok $([ $? -le 1 ] && echo 0 || echo 1) "the set with evidence checks"
# the labels survive a re-chunking: remap carries them through their quotes
"$evalset" chunk --by sentences --size 1 --overlap 0 -o sent.jsonl docs >/dev/null
"$evalset" remap demo --corpus sent.jsonl >remap.out 2>&1
is "$?" 0 "remap to one-sentence chunks succeeds"
grep -Eq "stale +0$" remap.out && grep -Eq "not mappable +0$" remap.out
ok $? "every generated label maps to the new chunking" "$(cat remap.out)"
stop_fake

# ---- the key never reaches any file of any case (sets, journals, outputs, batches) ----
cd "$root" || exit 1
! grep -rq "SENTINEL" "$root"; ok $? "no file written by any case holds the API key"

echo "1..$n"
[ "$failed" -eq 0 ]
