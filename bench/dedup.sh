#!/usr/bin/env bash
# Benchmark of the per-distinct-query work of `evalset import`:
# text_normalize_query of every distinct query, dedup_text_prepare of every
# group and the near-duplicate filter over the groups, most frequent first
# (core/text/text.c, core/text/neardup.c), without the log reading around them.
# bench/dedup.c is compiled here against a build dir's core library; nothing
# in the build or the test suite runs it.
#
# usage: bench/dedup.sh [BUILD_DIR]     (default: build)
#        BENCH_RECORDS=N to change the log size (default 1000000).
#
# Queries come from the log of bench/gen-import-log.py. Reports, best of 5
# rounds each, in seconds and as ratios to the floor (strhash of every
# distinct query in memory: touching the bytes once): the ASCII fast path
# against the utf8proc path (text_ascii_fast = false) for normalising and
# preparing, and the filter without and with dedup_hint (rarest words first
# in the prefixes). The last line checks both filters gave the same answers.
set -eu
. "$(dirname "$0")/lib.sh"
bench_program dedup "${1:-}"
n=${BENCH_RECORDS:-1000000}
python3 "$src/bench/gen-import-log.py" "$tmp/log.jsonl" "$n"
python3 - "$tmp/log.jsonl" "$tmp/queries.txt" <<'PY'
import collections, json, sys
c = collections.Counter(json.loads(l)["query"] for l in open(sys.argv[1]))
with open(sys.argv[2], "w") as f:
    for q, _ in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
        f.write(q.replace("\n", " ") + "\n")
PY
echo "log: $n records; load: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/dedup" "$tmp/queries.txt" > "$tmp/out" || { cat "$tmp/out"; echo "bench/dedup.sh: answers differ" >&2; exit 1; }
get() { awk -v k="$1" '$1 == k { print $2 }' "$tmp/out"; }
head -1 "$tmp/out"
floor=$(get floor)
row() { printf '%-40s %8.4f s %8.1fx floor\n' "$1" "$2" "$(echo "$2 / $floor" | bc -l)"; }
row 'floor: strhash of each query' "$floor"
row 'text_normalize_query, utf8proc path' "$(get normalize_utf8proc)"
row 'text_normalize_query, ASCII fast path' "$(get normalize_fast)"
row 'dedup_text_prepare, utf8proc path' "$(get prepare_utf8proc)"
row 'dedup_text_prepare, ASCII fast path' "$(get prepare_fast)"
row 'filter, no hints (hash order)' "$(get filter_unhinted)"
row 'filter, dedup_hint (rarest first)' "$(get filter_hinted)"
ratio() { printf '%-40s %8.1fx\n' "$1" "$(echo "$2 / $3" | bc -l)"; }
ratio 'normalize: utf8proc / fast' "$(get normalize_utf8proc)" "$(get normalize_fast)"
ratio 'prepare: utf8proc / fast' "$(get prepare_utf8proc)" "$(get prepare_fast)"
ratio 'filter: no hints / hints' "$(get filter_unhinted)" "$(get filter_hinted)"
echo "answers with and without hints: the same for every group"
