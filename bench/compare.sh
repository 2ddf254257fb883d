#!/usr/bin/env bash
# Benchmark of `evalset compare`: 10,000 bootstrap resamples and 10,000
# permutations over 7,000 questions and 10 measures (plus Decline and
# FalseDecline), every subset included, with the default gate (three
# rules) and with a gate of 12 rules (bench/gate12.yaml), in one compare
# each; the results files are checked against the set before use.
#
# usage: bench/compare.sh [EVALSET [OLD_EVALSET]]   (default: build-cmp/evalset)
#
# Reports absolute seconds and ratios against two floors measured in the
# same run: reading the two results files with `cat`, and the same compare
# with 1 resample and 1 permutation (loading, pairing, rendering only).
# With OLD_EVALSET (a build of an earlier evalset, e.g. from the commit
# before a change, built outside this tree), the same full compare is timed
# with it too and the ratio new / old printed.
# Not run by the test suite.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
evalset=$(cd "$(dirname "${1:-$src/build-cmp/evalset}")" && pwd)/$(basename "${1:-$src/build-cmp/evalset}")
old=""
if [ -n "${2:-}" ]; then old=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); fi
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
# the same files for an evalset from before results format 2
python3 "$src/bench/gen-compare.py" results "$digest" "$n" base1.json 0 1 --format-1
python3 "$src/bench/gen-compare.py" results "$digest" "$n" cand1.json -0.01 2 --format-1
cp "$src/bench/gate12.yaml" gate12.yaml

# best of 3: wall and CPU (user + sys) seconds of "$@"
best() {
  local bw=999999 bc=999999 line w c
  for _ in 1 2 3; do
    line=$( { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1 )
    w=$(echo "$line" | awk '{print $1}')
    c=$(echo "$line" | awk '{print $2 + $3}')
    bw=$(echo "if ($w < $bw) $w else $bw" | bc -l)
    bc=$(echo "if ($c < $bc) $c else $bc" | bc -l)
  done
  echo "$bw $bc"
}
ratio() { echo "$1 / $2" | bc -l; }

read -r floor_w floor_c < <(best cat base.json cand.json)
read -r load_w load_c < <(best "$evalset" compare sets/bench@v1 base.json cand.json --resamples 1 --permutations 1 --format json)
read -r full_w full_c < <(best "$evalset" compare sets/bench@v1 base.json cand.json --resamples 10000 --permutations 10000 --format json)
read -r g12_w g12_c < <(best "$evalset" compare sets/bench@v1 base.json cand.json --resamples 10000 --permutations 10000 --format json --gate gate12.yaml)
if [ -n "$old" ]; then
  if "$old" compare sets/bench@v1 base.json cand.json --resamples 1 --permutations 1 >/dev/null 2>&1; then
    ob=base.json oc=cand.json
  else
    ob=base1.json oc=cand1.json
  fi
  read -r old_w old_c < <(best "$old" compare sets/bench@v1 $ob $oc --resamples 10000 --permutations 10000 --format json)
  read -r old12_w old12_c < <(best "$old" compare sets/bench@v1 $ob $oc --resamples 10000 --permutations 10000 --format json --gate gate12.yaml)
fi
"$evalset" compare sets/bench@v1 base.json cand.json --format json > out.json || true
subsets=$(grep -c '"subset":' out.json)
measures=$(python3 -c 'import json; print(len(json.load(open("out.json"))["measures"]))')

printf 'questions %s, measures %s, subsets %s, results files %s bytes each; load %s\n' \
  "$n" "$measures" "$subsets" "$(stat -c %s base.json)" "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-42s %8s %8s\n' '' 'wall s' 'cpu s'
printf '%-42s %8.3f %8.3f\n' 'floor: cat both results files' "$floor_w" "$floor_c"
printf '%-42s %8.3f %8.3f\n' 'compare, 1 resample, 1 permutation' "$load_w" "$load_c"
printf '%-42s %8.3f %8.3f\n' 'compare, default gate (10000 + 10000)' "$full_w" "$full_c"
printf '%-42s %8.3f %8.3f\n' 'compare, 12 rules (10000 + 10000)' "$g12_w" "$g12_c"
printf 'ratios (wall): full/cat %.0fx, full/1-resample compare %.1fx\n' \
  "$(ratio "$full_w" "$floor_w")" "$(ratio "$full_w" "$load_w")"
printf 'ratio (cpu):  full/1-resample compare %.1fx (cat is too quick to time in cpu)\n' \
  "$(ratio "$full_c" "$load_c")"
if [ -n "$old" ]; then
  printf '%-42s %8.3f %8.3f\n' 'old compare, default gate' "$old_w" "$old_c"
  printf '%-42s %8.3f %8.3f\n' 'old compare, 12 rules' "$old12_w" "$old12_c"
  printf 'ratio new/old: default gate wall %.2fx, cpu %.2fx; 12 rules wall %.2fx, cpu %.2fx\n' \
    "$(ratio "$full_w" "$old_w")" "$(ratio "$full_c" "$old_c")" \
    "$(ratio "$g12_w" "$old12_w")" "$(ratio "$g12_c" "$old12_c")"
fi
