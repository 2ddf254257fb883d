#!/usr/bin/env bash
# Benchmark of `evalset chunk` on one long paragraph: the cost must grow
# with the words, not with their square (chunk ids used to be made unique
# by comparing each chunk with every earlier one of its document, so a
# paragraph whose text repeats took 9.7 s at 4M words).
#
# usage: bench/chunk.sh [EVALSET]        (default: build/evalset)
#        BENCH_WORDS="1 2 4" to choose the sizes, in millions of words.
#
# For each size, two Markdown files of one paragraph each: "repeating" (19
# words in turn, so the token windows repeat and their ids get -2, -3...)
# and "distinct" (w0 w1 w2...). Each is cut --by headings (512-token
# windows) and --by tokens (200, overlap 25), best of 3 runs (CPU time).
# A paragraph must fit in a document's 64 MiB: 7M distinct words do not.
# The floor is
# `wc -w` over the same file in the same run (reading it and finding its
# words once), so the rows compare across machines as ratios; the last
# column, seconds per million words, stays flat when the cost is linear.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
evalset=${1:-$src/build/evalset}
evalset=$(cd "$(dirname "$evalset")" && pwd)/$(basename "$evalset")
sizes=${BENCH_WORDS:-1 2 4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best_of CMD...: the least CPU time (user + system) of 3 runs, in seconds
# (CPU time rather than wall time: on a shared machine the wait for a core
# is not the command's cost); "failed" when the command fails
best_of() {
	local best= t
	for _ in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>&1 || { echo failed; return; }
		t=$(awk '{ print $1 + $2 }' "$tmp/time")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc -l)" = 1 ]; then best=$t; fi
	done
	echo "$best"
}

echo "evalset chunk on one paragraph; load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-10s %-10s %-9s %9s %9s %11s\n' words text by seconds 'x floor' 's/M words'
for m in $sizes; do
	python3 - "$tmp" "$m" <<'PY'
import sys
tmp, m = sys.argv[1], int(sys.argv[2])
base = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
        "incididunt ut labore et dolore magna aliqua").split()
n = m * 1000000
with open(tmp + "/repeating.md", "w") as f:
    f.write(" ".join(base[i % len(base)] for i in range(n)) + "\n")
with open(tmp + "/distinct.md", "w") as f:
    f.write(" ".join("w%d" % i for i in range(n)) + "\n")
PY
	for text in repeating distinct; do
		floor=$(best_of wc -w "$tmp/$text.md")
		printf '%-10s %-10s %-9s %9.3f %9s %11s\n' "${m}M" "$text" 'wc -w' "$floor" 1.0 \
			"$(printf '%.3f' "$(echo "$floor / $m" | bc -l)")"
		for by in headings tokens; do
			t=$(best_of "$evalset" chunk --by "$by" -o "$tmp/out.jsonl" --force "$tmp/$text.md")
			if [ "$t" = failed ]; then
				printf '%-10s %-10s %-9s %9s\n' "${m}M" "$text" "$by" failed
				continue
			fi
			printf '%-10s %-10s %-9s %9.3f %9.1f %11.3f\n' "${m}M" "$text" "$by" "$t" \
				"$(echo "$t / $floor" | bc -l)" "$(echo "$t / $m" | bc -l)"
		done
	done
done
