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
# "evalset sorted 1 thread" and "evalset shuffled 1 thread" are read on one
# thread (EVALSET_TREC_EVAL_THREADS=1); the other rows on two, as a plain
# run of 16 MiB or more is by default.
# ROWS=sorted measures only the sorted run (wc -l, cat, evalset on one and
# two threads), for a quick check of the sorted figures; ROUNDS=N sets the
# number of rounds.
#
# Prints one row per command: the least wall and the least CPU (user +
# system) seconds over ROUNDS interleaved rounds (default 3), the largest
# peak RSS, and the ratios that matter. trec_eval runs once per file (5 s
# and 600 MB each). Not run by the test suite.
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
case ${ROWS:-all} in
  all) only_sorted= ;;
  sorted) only_sorted=1 ;;
  *) echo "bench/trec_eval.sh: ROWS must be 'all' or 'sorted', not '$ROWS'" >&2; exit 2 ;;
esac

usage_of() { # prints "wall cpu rss_kb" of one run of the command, through wait4
  # posix_spawn, not subprocess: a fork of the Python interpreter would add
  # about 0.05 s of CPU to every row (the floors most of all). The child
  # starts in Python's memory, so a peak RSS under about 14 MB is Python's.
  python3 -c 'import os, shutil, sys, time
argv = sys.argv[1:]
out = os.open(os.devnull, os.O_WRONLY)
t = time.monotonic()
pid = os.posix_spawn(shutil.which(argv[0]) or argv[0], argv, os.environ,
                     file_actions=[(os.POSIX_SPAWN_DUP2, out, 1)])
_, status, r = os.wait4(pid, 0)
w = time.monotonic() - t
if status:
    sys.exit("%s failed (status %d)" % (argv[0], status))
print("%.3f %.3f %d" % (w, r.ru_utime + r.ru_stime, r.ru_maxrss))' "$@"
}
# The rows, measured in interleaved rounds (every row once per round, so
# that a burst of load from the machine's other users hits every row alike);
# each row keeps its least wall and least CPU over the rounds, and its
# largest peak RSS.
rounds=${ROUNDS:-3}
names=() cmds=()
add() { # add NAME CMD...: a row (its command as one shell-quoted string)
  names+=("$1"); shift
  cmds+=("$(printf '%q ' "$@")")
}
declare -A R
measure() { # measure [ROUNDS]: run the rows added so far
  local n=${1:-$rounds}
  for _ in $(seq "$n"); do
    for i in "${!names[@]}"; do
      local name=${names[$i]} line w c m
      [ -n "${done_row[$name]:-}" ] && continue
      line=$(eval "usage_of ${cmds[$i]}")
      read -r w c m <<< "$line"
      if [ -z "${R[$name]:-}" ]; then R[$name]=$line; continue; fi
      read -r bw bc bm <<< "${R[$name]}"
      R[$name]=$(awk -v w="$w" -v c="$c" -v m="$m" -v bw="$bw" -v bc="$bc" -v bm="$bm" \
        'BEGIN { printf "%.3f %.3f %d", (w < bw ? w : bw), (c < bc ? c : bc), (m > bm ? m : bm) }')
    done
  done
  for name in "${names[@]}"; do
    [ -n "${done_row[$name]:-}" ] && continue
    done_row[$name]=1
    read -r w c m <<< "${R[$name]}"
    printf '%-24s %8.3f %8.3f %9.1f\n' "$name" "$w" "$c" "$(awk -v m="$m" 'BEGIN { print m / 1024 }')"
  done
}
declare -A done_row
wall() { echo "${R[$1]}" | cut -d' ' -f1; }
cpu() { echo "${R[$1]}" | cut -d' ' -f2; }
rss() { echo "${R[$1]}" | cut -d' ' -f3; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

"$evalset" trec-eval "${measures[@]}" "$qrels" "$run" > /dev/null  # fail early, warm the cache
if [ "$only_sorted" ]; then cat "$run" > /dev/null; else cat "$work"/*.trec "$work/run.trec.gz" > /dev/null; fi
echo "$(wc -l < "$run") lines; load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
echo "command: $evalset trec-eval ${measures[*]} $qrels RUN"
printf '%-24s %8s %8s %9s\n' what wall_s cpu_s peak_MB
one=(env EVALSET_TREC_EVAL_THREADS=1 "$evalset")
add "wc -l"                  wc -l "$run"
add "cat"                    cat "$run"
[ "$only_sorted" ] || add "gzip -dc" gzip -dc "$work/run.trec.gz"
add "evalset sorted"         "$evalset" trec-eval "${measures[@]}" "$qrels" "$run"
add "evalset sorted 1 thread" "${one[@]}" trec-eval "${measures[@]}" "$qrels" "$run"
if [ -z "$only_sorted" ]; then
  add "evalset shuffled"     "$evalset" trec-eval "${measures[@]}" "$qrels" "$work/shuf.trec"
  add "evalset shuffled 1 thread" "${one[@]}" trec-eval "${measures[@]}" "$qrels" "$work/shuf.trec"
  add "evalset split"        "$evalset" trec-eval "${measures[@]}" "$qrels" "$work/split.trec"
  add "evalset gzip"         "$evalset" trec-eval "${measures[@]}" "$qrels" "$work/run.trec.gz"
fi
measure
have_te=
if [ -z "$only_sorted" ] && command -v trec_eval > /dev/null; then
  have_te=1
  add "trec_eval sorted"     trec_eval "${measures[@]}" "$qrels" "$run"
  add "trec_eval shuffled"   trec_eval "${measures[@]}" "$qrels" "$work/shuf.trec"
  measure 1
fi
echo
echo "one thread: CPU sorted / wc -l $(ratio "$(cpu "evalset sorted 1 thread")" "$(cpu "wc -l")")x (goal <= 5)"
echo "two threads: CPU sorted / wc -l $(ratio "$(cpu "evalset sorted")" "$(cpu "wc -l")")x," \
  "wall sorted / wc -l $(ratio "$(wall "evalset sorted")" "$(wall "wc -l")")x," \
  "wall two threads / one thread $(ratio "$(wall "evalset sorted")" "$(wall "evalset sorted 1 thread")")x"
[ "$only_sorted" ] && exit 0
echo "shuffled / sorted (goal <= 2): one thread CPU $(ratio "$(cpu "evalset shuffled 1 thread")" "$(cpu "evalset sorted 1 thread")")x," \
  "two threads CPU $(ratio "$(cpu "evalset shuffled")" "$(cpu "evalset sorted")")x," \
  "two threads wall $(ratio "$(wall "evalset shuffled")" "$(wall "evalset sorted")")x"
echo "CPU ratios:" \
  "split / sorted $(ratio "$(cpu "evalset split")" "$(cpu "evalset sorted")")x," \
  "gzip / gzip -dc $(ratio "$(cpu "evalset gzip")" "$(cpu "gzip -dc")")x;" \
  "wall: split / sorted $(ratio "$(wall "evalset split")" "$(wall "evalset sorted")")x"
if [ -n "$have_te" ]; then
  echo "against trec_eval: CPU sorted $(ratio "$(cpu "trec_eval sorted")" "$(cpu "evalset sorted")")x faster," \
    "shuffled $(ratio "$(cpu "trec_eval shuffled")" "$(cpu "evalset shuffled")")x faster;" \
    "peak RSS sorted $(ratio "$(rss "evalset sorted")" "$(rss "trec_eval sorted")")," \
    "shuffled $(ratio "$(rss "evalset shuffled")" "$(rss "trec_eval shuffled")") of trec_eval's"
fi
