# bench/lib.sh: what the benchmarks share. Sourced, not run: by
# bench/dedup.sh and bench/logjson.sh (a small program linked against the
# core library) and by bench/generate.sh and bench/generate-passes.sh (their
# arguments and corpus, and the fake LLM server from tests/fakes/fake_llm.sh:
# start_fake, stop_fake, PORT).
#
# bench_program NAME [BUILDDIR]: compile bench/NAME.c against
# BUILDDIR/libevalset-core.a (default: build, as tools/dev.sh builds it)
# into $tmp/NAME. Sets src (the source tree), build and tmp (a scratch
# directory removed on exit).
bench_program() {
	local name=$1 lib
	src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	build=$(cd "${2:-$src/build}" && pwd)
	lib=$build/libevalset-core.a
	[ -f "$lib" ] || { echo "bench/$name.sh: no $lib (build it first)" >&2; exit 2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	${CC:-cc} -std=c11 -O2 -D_GNU_SOURCE -I"$src/core" -o "$tmp/$name" "$src/bench/$name.c" "$lib" \
		$(pkg-config --libs libcurl libcjson yaml-0.1 libcrypto libutf8proc zlib) -lm -lpthread
}

# shellcheck source=../tests/fakes/fake_llm.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tests/fakes/fake_llm.sh"

# generate_bench_setup [EVALSET] [CHUNKS] [LATENCY_MS] [CONCURRENCY]: the
# arguments of the generate benchmarks (defaults build/evalset, 1000, 200,
# 32) into evalset (an absolute path), chunks, latency and conc; then a
# scratch directory, removed on exit with the fake stopped, as the current
# directory, holding chunks.jsonl: CHUNKS chunks of 60 random words, five
# to a document. Needs src (the source tree).
generate_bench_setup() {
	evalset=${1:-$src/build/evalset}
	chunks=${2:-1000}
	latency=${3:-200}
	conc=${4:-32}
	evalset=$(cd "$(dirname "$evalset")" && pwd)/$(basename "$evalset")
	work=$(mktemp -d)
	trap 'stop_fake; rm -rf "$work"' EXIT
	cd "$work" || exit 1
	python3 - "$chunks" <<'PY'
import json, random, sys
random.seed(11)
vocab = ["w%04d" % i for i in range(5000)]
with open("chunks.jsonl", "w") as f:
    for i in range(int(sys.argv[1])):
        f.write(json.dumps({"id": "c-%05d" % i, "doc": "d%d" % (i // 5),
                            "text": " ".join(random.sample(vocab, 60))}) + "\n")
PY
}

# fake_floor REQUESTS CONCURRENCY LATENCY_MS: the floor of the generate
# benchmarks, measured in the same run: a fresh fake answering after
# LATENCY_MS, sent REQUESTS chat requests by curl --parallel with
# CONCURRENCY in flight (no journal, no filters, no set: what this machine
# and the fake can do). Sets floor_s, the wall time in seconds. Writes its
# request files into the current directory and removes them.
fake_floor() {
	local n=$1 conc=$2 latency=$3 t0 t1
	start_fake --latency "$latency"
	python3 - "$n" "$PORT" <<'PY'
import json, sys
n, port = int(sys.argv[1]), sys.argv[2]
with open("curl.cfg", "w") as cfg:
    for i in range(n):
        body = {"model": "bench", "messages": [{"role": "user", "content": "Write 1 question(s) <chunk>floor %d</chunk>" % i}]}
        open("b%d.json" % i, "w").write(json.dumps(body))
        cfg.write('url = "http://127.0.0.1:%s/v1/chat/completions"\n' % port)
        cfg.write('data = "@b%d.json"\nheader = "Content-Type: application/json"\noutput = "/dev/null"\n' % i)
        if i + 1 < n:
            cfg.write("next\n")
PY
	t0=$(date +%s.%N)
	curl -s --no-progress-meter --parallel --parallel-max "$conc" -K curl.cfg
	t1=$(date +%s.%N)
	stop_fake
	rm -f b*.json curl.cfg
	floor_s=$(python3 -c "print($t1 - $t0)")
}
