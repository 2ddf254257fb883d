#!/usr/bin/env bash
# End-to-end tests of `--provider anthropic` (Anthropic's Messages API) for
# generate and judge against tests/fakes/fake_llm.py over HTTP on
# 127.0.0.1, printing TAP: the request shape (x-api-key, anthropic-version,
# a forced tool for structured output), replies equal to the Chat
# Completions path's for the same fake answers, usage with cache tokens,
# 529 and 429 retried, the spend limit and a wrong key stopping the job.
#
# usage: t-anthropic.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"

make_case() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	make_corpus chunks.jsonl 12 5 400 2
	make_run run.trec 4 4 3 12 2
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
}
# generation alone (exact request counts); the passes after it are checked below
gen() { "$evalset" generate demo --corpus chunks.jsonl --model claude-fake --base-url "$BASE" \
	--prompt-dir "$src/prompts" --kinds factoid,paraphrase --no-critique --no-verify "$@"; }
# the replies recorded: each journal key with its questions
replies() { python3 -c '
import json
for line in open("sets/demo/.evalset/generate.jsonl"):
    r = json.loads(line)
    if r.get("status") == "ok":
        print(r["key"], json.dumps(r["questions"], sort_keys=True))' | sort; }

export OPENAI_API_KEY=sk-SENTINEL-openai-55aa
export ANTHROPIC_API_KEY=sk-ant-api03-SENTINEL-9c1e

# ---- the Chat Completions path, as the reference ----
make_case openai
start_fake --expect-key "$OPENAI_API_KEY"
gen >out 2>err
is "$?" 0 "openai path succeeds"
ref_usage=$(grep '^usage:' out | sed 's/, [0-9.]*s$//')
stop_fake

# ---- generate over the Messages API ----
make_case anthropic
start_fake --expect-key "$ANTHROPIC_API_KEY"
gen --provider anthropic >out 2>err
is "$?" 0 "generate --provider anthropic succeeds" "$(cat err)"
is "$(stat_py 'd["protocols"].get("anthropic", 0)')" 24 "every request went to /messages"
is "$(stat_py 'd["protocols"].get("openai", 0)')" 0 "none to /chat/completions"
is "$(stat_py 'd["modes"].get("json_schema", 0)')" 24 "each request forces the reply tool"
grep -q "structured output json_schema" out; ok $? "summary: structured output through the tool" "$(head -1 out)"
replies > got; (cd "$root/openai" && replies) > want
cmp -s got want; ok $? "the replies recorded equal the Chat Completions path's for the same fake replies ($(wc -l < want))"
is "$(grep '^usage:' out | sed 's/, [0-9.]*s$//')" "$ref_usage" "usage counts input, cache-read and output tokens alike"
gen --provider anthropic >out 2>err
is "$(stat_py 'd["requests"]')" 24 "a rerun is answered from the journal"
! grep -rq "SENTINEL" out err sets/; ok $? "the key is in no output, set or journal"
stop_fake

# ---- the critique and verification passes over the Messages API ----
make_case anthropic-passes
start_fake --expect-key "$ANTHROPIC_API_KEY"
"$evalset" generate demo --corpus chunks.jsonl --model claude-fake --base-url "$BASE" --provider anthropic \
	--prompt-dir "$src/prompts" --kinds factoid,unanswerable >out 2>err
is "$?" 0 "generate with critique and verification over --provider anthropic" "$(cat err)"
is "$(stat_py 'd["protocols"].get("openai", 0)')" 0 "every pass spoke the Messages API"
is "$(grep -c '^    critique:' sets/demo/set.yaml)" "$(grep -c '^    kind: factoid' sets/demo/set.yaml)" "every factoid question rated"
is "$(grep -c '^    verification:' sets/demo/set.yaml)" "$(grep -c '^    kind: unanswerable' sets/demo/set.yaml)" "every unanswerable question verified"
grep -q "critique: 12 questions, 0 rated before, 12 rated now" out; ok $? "the critique's requests answered" "$(grep critique: out)"
stop_fake
cd "$root/anthropic" || exit 1

# ---- judge over the Messages API: the same grades as over Chat Completions ----
"$evalset" tag demo v1 >/dev/null 2>&1
"$evalset" pool demo@v1 run.trec -o pool.yaml >/dev/null 2>&1; ok $? "a pool to judge"
cp pool.yaml pool-openai.yaml
start_fake
"$evalset" judge pool.yaml --provider anthropic --model claude-fake --base-url "$BASE" \
	--prompt-dir "$src/prompts" >out 2>err
is "$?" 0 "judge --provider anthropic succeeds" "$(cat err)"
! grep -q "grade: null" pool.yaml; ok $? "every pair graded"
pairs=$(grep -c '^  - chunk: ' pool.yaml)
is "$(stat_py 'd["protocols"].get("anthropic", 0)')" "$pairs" "one Messages request per pair"
rm -f sets/demo/.evalset/judge.jsonl
"$evalset" judge pool-openai.yaml --model claude-fake --base-url "$BASE" --prompt-dir "$src/prompts" >out 2>err
cmp -s pool.yaml pool-openai.yaml; ok $? "grades equal the Chat Completions path's"
stop_fake

# ---- retries: 529 overloaded and 429 with retry-after, nothing lost or repeated ----
make_case overloaded
start_fake --fault 529:0.5 --fault 429:0.3 --first-only --retry-after 0
gen --provider anthropic >out 2>err
is "$?" 0 "529 and 429 on first attempts: the job completes" "$(tail -2 err)"
is "$(stat_py 'd["answered"] and max(d["answered"].values())')" 1 "each request answered once"
is "$(stat_py 'len(d["answered"])')" 24 "every request answered"
grep -Eq "usage: [0-9]+ HTTP requests, [1-9][0-9]* retries" out; ok $? "the retries are counted" "$(grep usage out)"
stop_fake

# ---- truncated (stop_reason max_tokens): asked once more with twice the budget ----
make_case length
start_fake --fault length
gen --provider anthropic --kinds factoid >out 2>err
is "$?" 0 "always-truncated replies: the job completes"
grep -q "12 unusable" out; ok $? "truncated replies counted unusable" "$(sed -n 2p out)"
is "$(stat_py 'd["requests"]')" 24 "one retry each, with a larger budget"
stop_fake

# ---- a server without tool use: plain instructions instead ----
make_case notools
start_fake --reject-schema
gen --provider anthropic --kinds factoid >out 2>err
is "$?" 0 "a server refusing tools: still succeeds"
grep -q "structured output plain" out; ok $? "fell back to plain instructions" "$(head -1 out)"
stop_fake

# ---- a wrong key and the spend limit stop the job (exit 3), key never shown ----
make_case wrongkey
start_fake --expect-key sk-ant-the-right-one
gen --provider anthropic >out 2>err
is "$?" 3 "a wrong key exits 3"
grep -q "ANTHROPIC_API_KEY" err; ok $? "the message names ANTHROPIC_API_KEY" "$(cat err)"
! grep -rq "SENTINEL" out err sets/; ok $? "the key (echoed by the server) is scrubbed"
stop_fake
make_case spend
start_fake --fault quota
gen --provider anthropic >out 2>err
is "$?" 3 "429 enforced_spend_limit_reached exits 3"
grep -q "no quota or credit left" err; ok $? "the message says so" "$(cat err)"
is "$(stat_py 'max(d["keys"].values())')" 1 "and it is not retried"
stop_fake

# ---- options ----
make_case opts
# no ANTHROPIC_API_KEY for api.anthropic.com: refused before anything is sent
ANTHROPIC_API_KEY= "$evalset" generate demo --corpus chunks.jsonl --model m --provider anthropic \
	--prompt-dir "$src/prompts" >out 2>err
is "$?" 2 "no key for api.anthropic.com: exit 2"
grep -q "set ANTHROPIC_API_KEY" err; ok $? "the message names ANTHROPIC_API_KEY" "$(cat err)"
"$evalset" generate demo --corpus chunks.jsonl --model m --provider gemini >out 2>err
is "$?" 2 "an unknown provider: exit 2"
"$evalset" generate demo --corpus chunks.jsonl --model m --provider anthropic --base-url http://127.0.0.1:9/v1 \
	--temperature 1.5 >out 2>err
is "$?" 2 "--temperature above 1 refused for anthropic"

echo "1..$n"
[ "$failed" = 0 ]
