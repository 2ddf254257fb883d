#!/usr/bin/env bash
# Benchmark `evalset trec-eval` on the MS MARCO dev-subset synthetic run
# (6,980 queries x 1,000 documents, about 7M lines, 292 MB) in four line
# orders, against floors measured in the same run on the same files:
#
#   sorted    the run as generated (grouped by query)
#   shuffled  every line in random order (shuf, fixed random source)
#   split     three lines of one query moved to the end of the file
#   gzip      the sorted run compressed with gzip
#
# floors: `wc -l` and `cat > /dev/null` on the sorted run, `gzip -dc` on the
# compressed one; and trec_eval on the sorted and shuffled runs when a
# trec_eval binary is on the PATH (it is not shipped: build it from
# https://github.com/usnistgov/trec_eval, see docs/trec-eval.md).
#
# usage: bench/trec_eval.sh [EVALSET] [WORKDIR]
#   EVALSET  the binary (default: build/evalset)
#   WORKDIR  where the generated runs are kept (default: /tmp/evalset-bench);
#            about 1 GB, generated once
# Prints one row per command: best-of-3 wall and CPU (user + system)
# seconds, peak RSS, and the ratios that matter. trec_eval runs once per
# file (5 s and 600 MB each). Not run by the test suite.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
evalset=${1:-$here/build/evalset}
work=${2:-/tmp/evalset-bench}
shared=$(cd "$here/../shared" && pwd)
qrels=$shared/data/qrels/qrels.msmarco-passage.dev-subset.txt
mkdir -p "$work"
run=$work/run.trec
if [ ! -s "$run" ]; then
  echo "generating $run (about 10 s)" >&2
  python3 "$shared/tools/make_run.py" "$qrels" -o "$run"
fi
[ -s "$work/shuf.trec" ] || shuf --random-source=<(yes) "$run" > "$work/shuf.trec"
[ -s "$work/split.trec" ] || awk 'NR >= 1001 && NR <= 1003 { held = held $0 "\n"; next }
  { print } END { printf "%s", held }' "$run" > "$work/split.trec"
[ -s "$work/run.trec.gz" ] || gzip -c "$run" > "$work/run.trec.gz"
measures=(-c)   # the default measures (official); -c as MS MARCO runs often miss queries

usage_of() { # prints "wall cpu rss_kb" of one run of the command, through getrusage
  python3 -c 'import resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
w = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %.3f %d" % (w, r.ru_utime + r.ru_stime, r.ru_maxrss))' "$@"
}
best() { # best [N] CMD...: the least CPU of N runs (default 3): "wall cpu rss_kb"
  local n=3 best_line= best_cpu=
  if [ "$1" = once ]; then n=1; shift; fi
  for _ in $(seq "$n"); do
    local line cpu
    line=$(usage_of "$@")
    cpu=$(echo "$line" | cut -d' ' -f2)
    if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN { exit !(a < b) }'; then
      best_cpu=$cpu; best_line=$line
    fi
  done
  echo "$best_line"
}
declare -A R
row() { # row NAME [once] CMD...
  local name=$1; shift
  R[$name]=$(best "$@")
  read -r w c m <<< "${R[$name]}"
  printf '%-20s %8.3f %8.3f %9.1f\n' "$name" "$w" "$c" "$(awk -v m="$m" 'BEGIN { print m / 1024 }')"
}
cpu() { echo "${R[$1]}" | cut -d' ' -f2; }
rss() { echo "${R[$1]}" | cut -d' ' -f3; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

"$evalset" trec-eval "${measures[@]}" "$qrels" "$run" > /dev/null  # fail early, warm the cache
cat "$work"/*.trec "$work/run.trec.gz" > /dev/null
echo "$(wc -l < "$run") lines; load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "command: $evalset trec-eval ${measures[*]} $qrels RUN"
printf '%-20s %8s %8s %9s\n' what wall_s cpu_s peak_MB
row "wc -l"              wc -l "$run"
row "cat"                cat "$run"
row "gzip -dc"           gzip -dc "$work/run.trec.gz"
row "evalset sorted"     "$evalset" trec-eval "${measures[@]}" "$qrels" "$run"
row "evalset shuffled"   "$evalset" trec-eval "${measures[@]}" "$qrels" "$work/shuf.trec"
row "evalset split"      "$evalset" trec-eval "${measures[@]}" "$qrels" "$work/split.trec"
row "evalset gzip"       "$evalset" trec-eval "${measures[@]}" "$qrels" "$work/run.trec.gz"
have_te=
if command -v trec_eval > /dev/null; then
  have_te=1
  row "trec_eval sorted"   once trec_eval "${measures[@]}" "$qrels" "$run"
  row "trec_eval shuffled" once trec_eval "${measures[@]}" "$qrels" "$work/shuf.trec"
fi
echo
echo "CPU ratios: sorted / wc -l $(ratio "$(cpu "evalset sorted")" "$(cpu "wc -l")")x," \
  "shuffled / sorted $(ratio "$(cpu "evalset shuffled")" "$(cpu "evalset sorted")")x," \
  "split / sorted $(ratio "$(cpu "evalset split")" "$(cpu "evalset sorted")")x," \
  "gzip / gzip -dc $(ratio "$(cpu "evalset gzip")" "$(cpu "gzip -dc")")x"
if [ -n "$have_te" ]; then
  echo "against trec_eval: CPU sorted $(ratio "$(cpu "trec_eval sorted")" "$(cpu "evalset sorted")")x faster," \
    "shuffled $(ratio "$(cpu "trec_eval shuffled")" "$(cpu "evalset shuffled")")x faster;" \
    "peak RSS sorted $(ratio "$(rss "evalset sorted")" "$(rss "trec_eval sorted")")," \
    "shuffled $(ratio "$(rss "evalset shuffled")" "$(rss "trec_eval shuffled")") of trec_eval's"
fi
