# Shared set-up of the end-to-end LLM tests (t-generate.sh, t-judge.sh):
# sourced, not run. Sets 'evalset' (absolute path of the binary given as the
# script's first argument), 'src' (the source tree) and 'root' (a scratch
# directory removed at exit, with the fake stopped); provides the TAP
# helpers ok/is (counting in 'n' and 'failed'; the script prints the plan
# "1..$n" at its end), the fake server's start_fake and stop_fake (from
# tests/fakes/fake_llm.sh: start_fake sets PORT and BASE) and stat_py.
evalset=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
n=0; failed=0
root=$(mktemp -d)
trap 'stop_fake; [ -n "${KEEP:-}" ] || rm -rf "$root"' EXIT

ok() {   # ok COND-EXIT-CODE DESCRIPTION [DIAG]
	n=$((n+1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; failed=$((failed+1)); [ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /'; fi
}
is() {   # is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then ok 0 "$3"; else ok 1 "$3" "got '$1', want '$2'"; fi
}

# shellcheck source=../fakes/fake_llm.sh
. "$src/tests/fakes/fake_llm.sh"
stat_py() {  # stat_py PYTHON-EXPR over the fake's /stats as d
	curl -s "http://127.0.0.1:$PORT/stats" | python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"
}
