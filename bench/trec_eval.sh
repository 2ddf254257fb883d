#!/usr/bin/env bash
# Benchmark `evalset trec-eval` against the floor `wc -l` on the same file,
# measured in the same run, at 1/10 and full size of the MS MARCO dev-subset
# synthetic run (6,980 queries x 1,000 documents, about 292 MB).
#
# usage: bench/trec_eval.sh [EVALSET] [WORKDIR]
#   EVALSET  the binary (default: build/evalset)
#   WORKDIR  where the generated runs are kept (default: /tmp/evalset-bench)
# Prints, per size: lines, best-of-3 seconds for wc -l and trec-eval, their
# ratio, the same for CPU time (user + system, from getrusage), and
# trec-eval's peak RSS. Not run by the test suite.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
evalset=${1:-$here/build/evalset}
work=${2:-/tmp/evalset-bench}
shared=$(cd "$here/../shared" && pwd)
qrels=$shared/data/qrels/qrels.msmarco-passage.dev-subset.txt
mkdir -p "$work"
if [ ! -s "$work/run.trec" ]; then
  echo "generating $work/run.trec (about 10 s)" >&2
  python3 "$shared/tools/make_run.py" "$qrels" -o "$work/run.trec"
fi
total=$(wc -l < "$work/run.trec")
[ -s "$work/run10.trec" ] || head -n $((total / 10)) "$work/run.trec" > "$work/run10.trec"
# -c: the 1/10 file holds only some of the qrels queries
measures=(-c -m P.5,10 -m recall.5,10,100 -m recip_rank -m ndcg_cut.10)

now() { date +%s%N; }
best_of_3() { # prints the fastest of three runs in seconds
  local best=
  for _ in 1 2 3; do
    local t0 t1
    t0=$(now); "$@" > /dev/null; t1=$(now)
    local d=$(( t1 - t0 ))
    if [ -z "$best" ] || [ "$d" -lt "$best" ]; then best=$d; fi
  done
  awk -v ns="$best" 'BEGIN { printf "%.3f", ns / 1e9 }'
}
usage_of() { # prints "cpu_seconds peak_rss_kb" of one run, through getrusage
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.3f %d" % (r.ru_utime + r.ru_stime, r.ru_maxrss))' "$@"
}

"$evalset" trec-eval "${measures[@]}" "$qrels" "$work/run10.trec" > /dev/null  # fail early
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores (wall times suffer from load; CPU times less)"
printf '%-6s %9s | %8s %8s %6s | %8s %8s %6s | %8s\n' size lines wc_wall ev_wall ratio wc_cpu ev_cpu ratio peak_MB
for f in run10.trec run.trec; do
  file=$work/$f
  cat "$file" > /dev/null   # warm the page cache for both commands alike
  lines=$(wc -l < "$file")
  twc=$(best_of_3 wc -l "$file")
  tev=$(best_of_3 "$evalset" trec-eval "${measures[@]}" "$qrels" "$file")
  read -r cwc _ < <(usage_of wc -l "$file")
  read -r cev rss < <(usage_of "$evalset" trec-eval "${measures[@]}" "$qrels" "$file")
  size=$([ "$f" = run.trec ] && echo full || echo 1/10)
  awk -v s="$size" -v l="$lines" -v a="$twc" -v b="$tev" -v c="$cwc" -v d="$cev" -v r="$rss" \
    'BEGIN { printf "%-6s %9d | %8.3f %8.3f %5.1fx | %8.3f %8.3f %5.1fx | %8.1f\n",
             s, l, a, b, (a > 0 ? b / a : 0), c, d, (c > 0 ? d / c : 0), r / 1024 }'
done
