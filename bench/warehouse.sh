#!/usr/bin/env bash
# Benchmark of a warehouse import: the same search log imported raw (a JSON
# Lines record a line) and pre-aggregated (docs/scale.md: a CSV row per
# query, document and signal with its count and distinct sessions), timed in
# the same run against the floor `wc -l RAW`.
#
# usage: bench/warehouse.sh [EVALSET]     (default: build/evalset)
#        BENCH_RECORDS=N to change the log size (default 10,000,000: about
#        1 GB of raw log; the generator takes about a minute per 10M records)
#        BENCH_RUNS=N runs of each (default 1: on a shared machine, once)
#
# Both imports take a stratified sample of 200 labelled queries (--sample
# 200) and write the unlabelled ones, as bench/import.sh does. The script
# checks that both give the same set (set.yaml without the logs' digests),
# then prints wall and CPU seconds (the best of BENCH_RUNS), the ratio raw /
# aggregated, each against the floor, and the load average. The rows were
# aggregated by the generator (what the warehouse does); that time is not
# the import's. Needs python3. Not run by the test suite.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
evalset=$(cd "$(dirname "${1:-$src/build/evalset}")" && pwd)/$(basename "${1:-$src/build/evalset}")
n=${BENCH_RECORDS:-10000000}
runs=${BENCH_RUNS:-1}
command -v python3 >/dev/null || { echo "bench/warehouse.sh: python3 is missing" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

python3 "$src/bench/gen-warehouse.py" raw.jsonl agg.csv "$n"
echo "raw log: $(wc -l < raw.jsonl) records, $(( $(stat -c %s raw.jsonl) / 1000000 )) MB;" \
  "aggregated: $(( $(wc -l < agg.csv) - 1 )) rows, $(( $(stat -c %s agg.csv) / 1000000 )) MB"

# best of $runs runs of the shell command "$1" in set directory "$2": prints "WALL CPU"
best() {
  local bw=999999 bc=999999 w c
  for _ in $(seq "$runs"); do
    rm -rf "$2" && mkdir "$2" && (cd "$2" && "$evalset" init bench >/dev/null)
    (cd "$2" && /usr/bin/time -o ../times -f '%e %U %S' bash -c "$1" >../"$2".out 2>&1)
    read -r w c < <(awk '{ print $1, $2 + $3 }' times)
    bw=$(echo "if ($w < $bw) $w else $bw" | bc -l)
    bc=$(echo "if ($c < $bc) $c else $bc" | bc -l)
  done
  echo "$bw $bc"
}

opts="--sample 200 --seed 1 --unlabelled todo.jsonl"
cat raw.jsonl agg.csv > /dev/null  # warm the page cache for all
read -r floor floor_cpu < <(best "wc -l ../raw.jsonl" floor)
read -r rawt raw_cpu < <(best "'$evalset' import bench --log ../raw.jsonl $opts" raw)
read -r aggt agg_cpu < <(best "'$evalset' import bench --log ../agg.csv --field count=count \
  --field sessions=sessions --field time=first_seen --field last=last_seen $opts" agg)
if cmp -s <(grep -v sha256: raw/sets/bench/set.yaml) <(grep -v sha256: agg/sets/bench/set.yaml) &&
   cmp -s raw/todo.jsonl agg/todo.jsonl; then
  echo "raw and aggregated imports give the same set and unlabelled file"
else
  echo "raw and aggregated imports DIFFER" >&2
  exit 1
fi
grep -E '^(records read|distinct queries|labelled  |added  )' raw.out
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-34s %8s %8s\n' '' 'wall s' 'CPU s'
printf '%-34s %8.2f %8.2f\n' 'floor: wc -l raw log' "$floor" "$floor_cpu"
printf '%-34s %8.2f %8.2f\n' 'import, raw log' "$rawt" "$raw_cpu"
printf '%-34s %8.2f %8.2f\n' 'import, aggregated rows' "$aggt" "$agg_cpu"
printf 'ratio raw / aggregated             %7.1fx %7.1fx\n' \
  "$(echo "$rawt / $aggt" | bc -l)" "$(echo "$raw_cpu / $agg_cpu" | bc -l)"
printf 'raw / floor, aggregated / floor    %7.1fx %7.1fx  (wall)\n' \
  "$(echo "$rawt / $floor" | bc -l)" "$(echo "$aggt / $floor" | bc -l)"
