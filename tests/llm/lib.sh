# Shared set-up of the end-to-end LLM tests (t-generate.sh, t-judge.sh):
# sourced, not run. Sets 'evalset' (absolute path of the binary given as the
# script's first argument), 'src' (the source tree) and 'root' (a scratch
# directory removed at exit, with the fake stopped); provides the TAP
# helpers ok/is (counting in 'n' and 'failed'; the script prints the plan
# "1..$n" at its end), the fake server's start_fake and stop_fake (from
# tests/fakes/fake_llm.sh: start_fake sets PORT and BASE) and stat_py; the
# synthetic corpus and run of make_corpus and make_run; wait_records.
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
stat_py() {  # stat_py PYTHON-EXPR over the fake's /stats as d, printed (the fake evaluates it)
	curl -s -G --data-urlencode "expr=$1" "http://127.0.0.1:$PORT/stats"
}

# made FILE GEN ARGS...: FILE, a copy of what `GEN PATH ARGS...` writes to
# PATH, run once per script for the same GEN and ARGS (kept under
# $root/.made): the generators below give the same file for the same
# arguments, and a Python start costs more than a copy
made() {
	local file=$1 gen=$2 key
	shift 2
	printf -v key '%s-' "$gen" "$@"
	key="$root/.made/$key"
	if [ ! -f "$key" ]; then
		mkdir -p "$root/.made" && "$gen" "$key.tmp" "$@" && mv "$key.tmp" "$key" || return 1
	fi
	cp "$key" "$file"
}
# make_corpus FILE CHUNKS SEED VOCAB WIDTH: CHUNKS chunks c-N (N zero-padded
# to WIDTH digits) in documents of four, each "Setting" and 30 words drawn
# from VOCAB words w000.. with Python's random seeded SEED
make_corpus() { made "$1" corpus_gen "${@:2}"; }
corpus_gen() {
	python3 - "$@" <<'PY'
import json, random, sys
path, chunks, seed, vocab, width = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
random.seed(seed)
words = ["w%03d" % i for i in range(vocab)]
with open(path, "w") as f:
    for i in range(chunks):
        f.write(json.dumps({"id": "c-%0*d" % (width, i), "doc": "d%d" % (i // 4), "title": "Doc %d" % (i // 4),
                            "text": "Setting " + " ".join(random.sample(words, 30)) + "."}) + "\n")
PY
}
# make_run FILE QUERIES DEPTH STEP CHUNKS WIDTH: a TREC run "bm25" answering
# q-0001..QUERIES with DEPTH chunks each, chunk (q * STEP + rank) mod CHUNKS
make_run() { made "$1" run_gen "${@:2}"; }
run_gen() {
	python3 - "$@" <<'PY'
import sys
path, queries, depth, step, chunks, width = sys.argv[1], *map(int, sys.argv[2:7])
with open(path, "w") as f:
    for q in range(1, queries + 1):
        for r in range(depth):
            f.write("q-%04d Q0 c-%0*d %d %d bm25\n" % (q, width, (q * step + r) % chunks, r + 1, 10 - r))
PY
}
# wait_records JOURNAL N TRIES: wait (TRIES times 0.1 s at most) until the
# journal JOURNAL holds N records with a status
wait_records() {
	local i
	for i in $(seq "$3"); do
		[ -f "$1" ] && [ "$(grep -c '"status"' "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}
