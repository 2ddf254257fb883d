#!/usr/bin/env bash
# Benchmark of `evalset import`: a generated 1M-record JSON Lines log (about
# 150 MB) imported into an empty set, against the shell pipeline a user would
# otherwise write to count queries, timed in the same run:
#
#     jq -r .query LOG | sort | uniq -c | sort -rn
#
# usage: bench/import.sh [EVALSET]     (default: build/evalset)
#        BENCH_RECORDS=N to change the log size.
#
# The import is the one a team runs to build a set (of 50 to 200 questions):
# every record is read, grouped, labelled and scrubbed, and a stratified
# sample of 200 labelled queries is added (--sample 200); the unlabelled ones
# are written out. Without --sample the 22,000 labelled queries of this log
# would all go into one 19 MB set.yaml, which measures the YAML writer.
#
# Reports wall and CPU seconds (best of 3 each) for both and for the floor
# (`wc -l LOG`: reading the bytes), the ratios (pipeline / evalset; the issue
# asks for at least 5) and evalset's peak RSS. The machine's load average is
# printed: on a shared machine wall times move with it, CPU times less.
# Needs jq (apt-get install jq) and python3 for the generator. Not run by the test suite.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
evalset=$(cd "$(dirname "${1:-$src/build/evalset}")" && pwd)/$(basename "${1:-$src/build/evalset}")
n=${BENCH_RECORDS:-1000000}
command -v jq >/dev/null || { echo "bench/import.sh: jq is missing (apt-get install jq)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "bench/import.sh: python3 is missing" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

python3 "$src/bench/gen-import-log.py" log.jsonl "$n"
echo "log: $n records, $(( $(stat -c %s log.jsonl) / 1000000 )) MB"

# best of 3 runs of the shell command "$1": prints "WALL CPU" (seconds; CPU is
# user + system of the command and its children, the best run of each)
best() {
  local bw=999999 bc=999999 w c
  for _ in 1 2 3; do
    rm -rf sets && "$evalset" init bench >/dev/null
    /usr/bin/time -o times -f '%e %U %S' bash -c "$1" >/dev/null 2>&1
    read -r w c < <(awk '{ print $1, $2 + $3 }' times)
    bw=$(echo "if ($w < $bw) $w else $bw" | bc -l)
    bc=$(echo "if ($c < $bc) $c else $bc" | bc -l)
  done
  echo "$bw $bc"
}

cat log.jsonl > /dev/null  # warm the page cache for all
read -r floor floor_cpu < <(best "wc -l log.jsonl")
read -r pipe pipe_cpu < <(best "jq -r .query log.jsonl | sort | uniq -c | sort -rn > counts.txt")
args="--log log.jsonl --field time=ts --sample 200 --seed 1 --unlabelled todo.jsonl"
read -r imp imp_cpu < <(best "'$evalset' import bench $args")
rm -rf sets && "$evalset" init bench >/dev/null
rss=$( { /usr/bin/time -f '%M' "$evalset" import bench $args > summary.txt; } 2>&1 | tail -1)
grep -E '^(log |records read|distinct queries|labelled  |added  )' summary.txt
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %8s %8s\n' '' 'wall s' 'CPU s'
printf '%-34s %8.2f %8.2f\n' 'floor: wc -l' "$floor" "$floor_cpu"
printf '%-34s %8.2f %8.2f\n' 'jq | sort | uniq -c | sort -rn' "$pipe" "$pipe_cpu"
printf '%-34s %8.2f %8.2f\n' 'evalset import' "$imp" "$imp_cpu"
printf 'ratio (pipeline / import)          %7.1fx %7.1fx  (the issue asks for 5x wall)\n' \
  "$(echo "$pipe / $imp" | bc -l)" "$(echo "$pipe_cpu / $imp_cpu" | bc -l)"
printf 'import / floor                     %7.1fx\n' "$(echo "$imp / $floor" | bc -l)"
printf 'evalset peak RSS                   %7.1f MB\n' "$(echo "$rss / 1024" | bc -l)"
