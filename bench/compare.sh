#!/usr/bin/env bash
# Benchmark of `evalset compare`: 10,000 bootstrap resamples and 10,000
# permutations over 7,000 questions and 10 measures (plus Decline), every
# subset included, in one compare.
#
# usage: bench/compare.sh [EVALSET]     (default: build-cmp/evalset)
#
# Reports absolute seconds and ratios against two floors measured in the
# same run: reading the two results files with `cat`, and the same compare
# with 1 resample and 1 permutation (loading, pairing, rendering only).
# Not run by the test suite.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
evalset=$(cd "$(dirname "${1:-$src/build-cmp/evalset}")" && pwd)/$(basename "${1:-$src/build-cmp/evalset}")
n=${BENCH_QUESTIONS:-7000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

mkdir -p sets/bench
python3 "$src/bench/gen-compare.py" set sets/bench "$n"
"$evalset" tag sets/bench v1 -m bench >/dev/null 2>&1
digest=$(sed -n 's/^digest: //p' sets/bench/versions/v1.yaml)
python3 "$src/bench/gen-compare.py" results "$digest" "$n" base.json 0 1
python3 "$src/bench/gen-compare.py" results "$digest" "$n" cand.json -0.01 2

now() { date +%s.%N; }
best() { # best of 3 runs of "$@", in seconds
  local b=999999 t0 t1 d
  for _ in 1 2 3; do
    t0=$(now); "$@" >/dev/null 2>&1 || true; t1=$(now)
    d=$(echo "$t1 - $t0" | bc -l)
    b=$(echo "if ($d < $b) $d else $b" | bc -l)
  done
  echo "$b"
}

floor=$(best cat base.json cand.json)
load=$(best "$evalset" compare sets/bench@v1 base.json cand.json --resamples 1 --permutations 1 --format json)
full=$(best "$evalset" compare sets/bench@v1 base.json cand.json --resamples 10000 --permutations 10000 --format json)
"$evalset" compare sets/bench@v1 base.json cand.json --format json > out.json || true
subsets=$(grep -c '"subset":' out.json)
measures=$(python3 -c 'import json; print(len(json.load(open("out.json"))["measures"]))')

printf 'questions %s, measures %s, subsets %s, results files %s bytes each\n' \
  "$n" "$measures" "$subsets" "$(stat -c %s base.json)"
printf 'floor: cat both results files       %8.3f s\n' "$floor"
printf 'compare, 1 resample/permutation     %8.3f s  (%.0fx cat)\n' "$load" "$(echo "$load / $floor" | bc -l)"
printf 'compare, 10000 resamples + perms    %8.3f s  (%.0fx cat, %.1fx the 1-resample compare)\n' \
  "$full" "$(echo "$full / $floor" | bc -l)" "$(echo "$full / $load" | bc -l)"
