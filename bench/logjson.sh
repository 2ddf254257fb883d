#!/usr/bin/env bash
# Benchmark of the JSON Lines parse and field lookup of `evalset import`
# (core/logs/logjson.c: log_json_parse, then log_json_get for the 7 fields import
# reads) on a generated log (bench/gen-import-log.py), without the reading,
# hashing and folding around them. bench/logjson.c is compiled here against
# a build dir's core library; nothing in the build or the test suite runs it.
#
# usage: bench/logjson.sh [BUILD_DIR]     (default: build)
#        BENCH_RECORDS=N to change the log size (default 1000000, ~158 MB).
#
# Reports, best of several rounds each: the floor `wc -l LOG` (reading the
# bytes once, page cache warm), the in-process floor (splitting the
# in-memory log into lines and copying each to a scratch buffer), the fast
# path (the default) and the full strict parser alone, in seconds and as
# ratios to `wc -l`. The last line checks both paths found the same values.
set -eu
. "$(dirname "$0")/lib.sh"
bench_program logjson "${1:-}"
n=${BENCH_RECORDS:-1000000}
python3 "$src/bench/gen-import-log.py" "$tmp/log.jsonl" "$n"
echo "log: $n records, $(( $(stat -c %s "$tmp/log.jsonl") / 1000000 )) MB; load: $(cut -d' ' -f1-3 /proc/loadavg)"

cat "$tmp/log.jsonl" > /dev/null
wc=999999
for _ in 1 2 3 4 5; do
	s=$(date +%s.%N); wc -l "$tmp/log.jsonl" > /dev/null; e=$(date +%s.%N)
	wc=$(echo "t = $e - $s; if (t < $wc) t else $wc" | bc -l)
done
read -r fast copy rest_fast < <("$tmp/logjson" "$tmp/log.jsonl")
read -r full _ rest_full < <("$tmp/logjson" "$tmp/log.jsonl" full)
row() { printf '%-36s %8.3f s %7.2fx wc -l\n' "$1" "$2" "$(echo "$2 / $wc" | bc -l)"; }
row 'floor: wc -l' "$wc"
row 'floor: split + copy lines' "$copy"
row 'parse + get 7 fields (fast path)' "$fast"
row 'parse + get 7 fields (full parser)' "$full"
printf 'full / fast %.2fx; fast: %s\n' "$(echo "$full / $fast" | bc -l)" "$rest_fast"
[ "$rest_fast" = "$rest_full" ] || { echo "values differ: full: $rest_full" >&2; exit 1; }
