#!/usr/bin/env bash
# Secrets: `evalset generate` and `evalset judge` run with a sentinel API key
# against tests/fakes/fake_llm.py, on the success path and on every error
# path the key could leak through (a 401 whose body echoes the key, 429
# insufficient_quota, 500s, dropped connections, replies that are not
# JSON). After each run, the sentinel (and its random part alone) must be
# absent from every file under the scratch directory (set, journals, pool,
# outputs) and from stdout and stderr. Prints TAP.
#
# usage: t-secrets.sh EVALSET
set -u
# shellcheck source=../llm/lib.sh
. "$(dirname "$0")/../llm/lib.sh"
trap 'stop_fake; [ -n "${KEEP:-}" ] || rm -rf "$root"' EXIT

secret=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
export OPENAI_API_KEY="sk-sentinel-$secret"
export ANTHROPIC_API_KEY="sk-ant-api03-sentinel-$secret"
provider=()   # --provider anthropic for the Messages API scenarios

# A set with a corpus of 6 chunks, a TREC run over it and a pool to judge.
make_case() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	python3 - <<'PY'
import json
texts = ["Rotate the signing key from the admin console every ninety days.",
         "Webhook retries back off for up to one day before giving up.",
         "Refunds are possible within thirty days of the purchase date.",
         "SAML single sign-on is available on the Enterprise plan only.",
         "Export your data as CSV from the reports page at any time.",
         "The status page lists incidents and planned maintenance windows."]
with open("chunks.jsonl", "w") as f:
    for i, t in enumerate(texts):
        f.write(json.dumps({"id": "c-%d" % i, "doc": "d%d" % (i // 2), "text": t}) + "\n")
with open("run.trec", "w") as f:
    for q in range(1, 4):
        for r, c in enumerate([(q + k) % 6 for k in range(3)]):
            f.write("q-%04d Q0 c-%d %d %d bm25\n" % (q, c, r + 1, 10 - r))
PY
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
	for i in 1 2 3; do
		"$evalset" add demo --text "Question number $i about keys and refunds?" --relevant "c-$((i - 1))" >/dev/null 2>&1 || exit 1
	done
	"$evalset" pool demo run.trec -o pool.yaml --corpus chunks.jsonl >/dev/null 2>&1 || exit 1
}

# leak_check DESCRIPTION: no file under the scratch dir and no output holds the key
leak_check() {
	local hits
	# any case, and either end of the key alone (a server that splits it)
	hits=$(grep -rlaiF -e "$OPENAI_API_KEY" -e "$ANTHROPIC_API_KEY" -e "$secret" -e "${secret:0:10}" \
		-e "${secret: -10}" . 2>/dev/null | tr '\n' ' ')
	ok $([ -z "$hits" ] && echo 0 || echo 1) "$1: key in no file or output" "found in: $hits"
}

gen() {
	"$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" \
		--prompt-dir "$src/prompts" --kinds factoid --max-attempts 2 ${provider[@]+"${provider[@]}"} "$@" >out 2>err
}
judge() {
	"$evalset" judge pool.yaml --corpus chunks.jsonl --model fake-1 --base-url "$BASE" \
		--prompt-dir "$src/prompts" --max-attempts 2 ${provider[@]+"${provider[@]}"} "$@" >jout 2>jerr
}

# scenario NAME WANT-RC-OF-GENERATE FAKE-ARGS...: generate then judge against one fake
scenario() {
	local name=$1 want=$2 rc
	shift 2
	make_case "$name"
	start_fake "$@"
	gen; rc=$?
	ok $([ "$rc" = "$want" ] && echo 0 || echo 1) "$name: generate exits $want" "got $rc: $(head -c 300 err)"
	judge; rc=$?
	ok $([ "$rc" = "$want" ] && echo 0 || echo 1) "$name: judge exits $want" "got $rc: $(head -c 300 jerr)"
	stop_fake
	leak_check "$name"
}

scenario success 0
# the fake's 401 body echoes the key it was sent, as OpenAI's does
scenario wrong-key 3 --expect-key sk-the-right-one --error-style nested
grep -qF "Incorrect API key provided: ***" err
ok $? "wrong-key: the server's echo of the key is in the message, scrubbed" "$(head -c 300 err)"
scenario wrong-key-flat 3 --expect-key sk-the-right-one --error-style flat
# a server that echoes the key transformed: upper-cased, or split in two
scenario echo-upper 3 --expect-key sk-the-right-one --echo-key upper
scenario echo-split 3 --expect-key sk-the-right-one --echo-key split

# a key in the base URL (user:KEY@, ?key=, ?api_key=) is in no message, file or output
url_key="urlkey-$secret"
make_case url-credentials
start_fake --expect-key sk-the-right-one
for base in "http://user:$url_key@127.0.0.1:$PORT/v1" "http://127.0.0.1:$PORT/v1?key=$url_key" \
	    "http://127.0.0.1:$PORT/v1?API_KEY=$url_key&x=1"; do
	"$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$base" \
		--prompt-dir "$src/prompts" --kinds factoid --max-attempts 2 >>out 2>>err
	"$evalset" config --base-url "$base" >>out 2>>err
done
stop_fake
! grep -rqaF -e "$url_key" . ; ok $? "url-credentials: the URL's key in no message, file or output" "$(grep -rlaF "$url_key" .)"
grep -q "127.0.0.1:$PORT/v1" err; ok $? "url-credentials: the endpoint is still named" "$(head -c 300 err)"
# an unreachable base URL with credentials: the error names it, scrubbed
"$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "http://me:$url_key@127.0.0.1:9/v1?token=$url_key" \
	--prompt-dir "$src/prompts" --kinds factoid >out 2>err
grep -qF "cannot reach the endpoint 'http://***@127.0.0.1:9/v1?token=***'" err
ok $? "url-credentials: the unreachable endpoint named without its credentials" "$(head -c 300 err)"
leak_check url-credentials
scenario quota 3 --fault quota
scenario server-error 0 --fault 500:0.5 --first-only
scenario dropped 0 --fault drop:0.5 --first-only
scenario malformed 0 --fault malformed:0.5 --first-only

# the key is not in the journal even when the server keeps failing
make_case always-500
start_fake --fault 500
gen; rc=$?
ok $([ "$rc" != 0 ] && echo 0 || echo 1) "always-500: generate fails" "got $rc"
judge
stop_fake
leak_check always-500

# dry runs print the requests: no key in them
make_case dry-run
gen --dry-run; judge --dry-run
leak_check dry-run

# the same through Anthropic's Messages API (x-api-key header, ANTHROPIC_API_KEY)
provider=(--provider anthropic)
scenario anthropic-success 0
scenario anthropic-wrong-key 3 --expect-key sk-ant-the-right-one
grep -qF "Incorrect API key provided: ***" err
ok $? "anthropic-wrong-key: the echo of the key is scrubbed" "$(head -c 300 err)"
grep -qF "ANTHROPIC_API_KEY" err
ok $? "anthropic-wrong-key: the message names ANTHROPIC_API_KEY" "$(head -c 300 err)"
scenario anthropic-spend-limit 3 --fault quota
scenario anthropic-overloaded 0 --fault 529:0.5 --first-only
make_case anthropic-dry-run
gen --dry-run; judge --dry-run
leak_check anthropic-dry-run
provider=()

echo "1..$n"
[ "$failed" -eq 0 ]
