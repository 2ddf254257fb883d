#!/usr/bin/env bash
# Benchmark of `evalset chunk` on a large tree of Markdown: CPU and peak
# memory against `cat` of the same files in the same run.
#
# usage: bench/chunk-tree.sh [EVALSET...]      (default: build/evalset)
#        BENCH_COPIES=N copies of the FastAPI docs (default 200, about 200 MB)
#
# The tree is N copies of ../shared/data/fastapi-docs (real Markdown in
# English and other languages), each copy in its own folder so that every
# document has its own name. Each evalset given is run --by headings and
# --by tokens, best of 3 (CPU from /usr/bin/time: user + system; peak
# resident memory, maxrss). The floor is `cat` of every file to /dev/null.
# Give two binaries (e.g. main's and yours) to compare them in one run.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
docs=${BENCH_DOCS:-$src/../shared/data/fastapi-docs}
copies=${BENCH_COPIES:-200}
[ $# -gt 0 ] || set -- "$src/build/evalset"
[ -d "$docs" ] || { echo "no $docs: set BENCH_DOCS to a folder of Markdown" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 1 "$copies"); do
	mkdir -p "$tmp/tree/c$i"
	cp -r "$docs"/. "$tmp/tree/c$i/"
done
find "$tmp/tree" -type f ! -name '*.md' -delete
bytes=$(find "$tmp/tree" -name '*.md' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
files=$(find "$tmp/tree" -name '*.md' | wc -l)

# best_of CMD...: "CPU-seconds peak-KiB", the least CPU of 3 runs (its peak
# memory with it); "failed" when the command fails
best_of() {
	local best= mem= t
	for _ in 1 2 3; do
		/usr/bin/time -f '%U %S %M' -o "$tmp/time" "$@" >/dev/null 2>&1 || { echo failed; return; }
		t=$(awk '{ print $1 + $2 }' "$tmp/time")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then
			best=$t
			mem=$(awk '{ print $3 }' "$tmp/time")
		fi
	done
	echo "$best $mem"
}

echo "evalset chunk on $files Markdown files, $((bytes / 1000000)) MB; load: $(cut -d' ' -f1-3 /proc/loadavg)"
floor=$(best_of sh -c "find '$tmp/tree' -name '*.md' -print0 | xargs -0 cat > /dev/null")
set -- $floor "$@"
fcpu=$1 fmem=$2
shift 2
printf '%-40s %-9s %9s %9s %10s %9s\n' binary by 'CPU s' 'x cat' 'peak MiB' 'x cat'
printf '%-40s %-9s %9.3f %9s %10.1f %9s\n' cat - "$fcpu" 1.0 "$(echo "$fmem / 1024" | bc -l)" 1.0
for bin in "$@"; do
	for by in headings tokens; do
		r=$(best_of "$bin" chunk --by "$by" -o "$tmp/out.jsonl" --force "$tmp/tree")
		if [ "$r" = failed ]; then
			printf '%-40s %-9s failed\n' "$bin" "$by"
			continue
		fi
		set -- $r
		printf '%-40s %-9s %9.3f %9.1f %10.1f %9.1f\n' "$bin" "$by" "$1" "$(echo "$1 / $fcpu" | bc -l)" \
			"$(echo "$2 / 1024" | bc -l)" "$(echo "$2 / $fmem" | bc -l)"
	done
done
