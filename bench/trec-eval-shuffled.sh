#!/usr/bin/env bash
# Benchmark `evalset trec-eval` on a fully shuffled run against the same
# run sorted: the CPU a shuffled run costs beyond a grouped one (goal: at
# most 2x on one thread). The run is MS MARCO-sized, from
# ../shared/tools/make_run.py over the dev-subset qrels (6,980 queries x
# 1,000 documents, about 7M lines, 292 MB), and its every line put in a
# random order by `shuf` (a seeded random source, so the same file each
# time: not a shuffle of blocks, each line lands anywhere).
#
# CPU is user + system seconds of the child from wait4 (getrusage of one
# child, microseconds; /usr/bin/time's 10 ms ticks are too coarse here),
# the least over ROUNDS interleaved rounds (default 5): every row once a
# round, so a burst of load from the machine's other users hits every row
# alike. Rows, all on the same files in the same run:
#
#   wc -l, cat        floors, on the sorted run
#   sorted 1 / shuffled 1    evalset on one thread (EVALSET_TREC_EVAL_THREADS=1)
#   sorted / shuffled        evalset with its default threads (two for a
#                            plain run of 16 MiB or more)
#   before ...        the same four with the binary BEFORE=PATH, when set
#                     (a build of an older commit: before and after in one run)
#
# usage: bench/trec-eval-shuffled.sh [EVALSET] [WORKDIR]
#   EVALSET  the binary (default: build/evalset)
#   WORKDIR  where the runs are generated once (default: /tmp/evalset-bench-shuf;
#            about 600 MB)
# Not run by the test suite.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
evalset=${1:-$here/build/evalset}
work=${2:-/tmp/evalset-bench-shuf}
before=${BEFORE:-}
rounds=${ROUNDS:-5}
shared=$(cd "$here/../shared" && pwd)
qrels=$shared/data/qrels/qrels.msmarco-passage.dev-subset.txt
mkdir -p "$work"
run=$work/run.trec
shuf=$work/shuf.trec
if [ ! -s "$run" ]; then
  echo "generating $run (about 30 s)" >&2
  python3 "$shared/tools/make_run.py" "$qrels" -o "$run.tmp"
  mv "$run.tmp" "$run"
fi
if [ ! -s "$shuf" ]; then
  # a stream of pseudo-random bytes from a fixed seed (AES in counter mode
  # over zeros, as coreutils' manual suggests for a repeatable shuf)
  shuf --random-source=<(openssl enc -aes-256-ctr -pass pass:evalset-bench -nosalt \
    -pbkdf2 < /dev/zero 2> /dev/null) "$run" > "$shuf.tmp"
  mv "$shuf.tmp" "$shuf"
fi

# the rows: name, then the command; EVALSET_TREC_EVAL_THREADS=1 through env
rows=("wc -l" wc -l "$run" --
      "cat" cat "$run" --
      "sorted 1" env EVALSET_TREC_EVAL_THREADS=1 "$evalset" trec-eval -c "$qrels" "$run" --
      "shuffled 1" env EVALSET_TREC_EVAL_THREADS=1 "$evalset" trec-eval -c "$qrels" "$shuf" --
      "sorted" "$evalset" trec-eval -c "$qrels" "$run" --
      "shuffled" "$evalset" trec-eval -c "$qrels" "$shuf" --)
if [ -n "$before" ]; then
  rows+=("before sorted 1" env EVALSET_TREC_EVAL_THREADS=1 "$before" trec-eval -c "$qrels" "$run" --
         "before shuffled 1" env EVALSET_TREC_EVAL_THREADS=1 "$before" trec-eval -c "$qrels" "$shuf" --
         "before sorted" "$before" trec-eval -c "$qrels" "$run" --
         "before shuffled" "$before" trec-eval -c "$qrels" "$shuf" --)
fi

# the same output from both orders, or the figures mean nothing
cmp <("$evalset" trec-eval -c "$qrels" "$run") <("$evalset" trec-eval -c "$qrels" "$shuf") \
  || { echo "bench/trec-eval-shuffled.sh: the sorted and shuffled runs score differently" >&2; exit 1; }
cat "$run" "$shuf" > /dev/null  # in the page cache
echo "$(wc -l < "$run") lines, $(( $(stat -c %s "$run") / 1000000 )) MB;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $rounds rounds"

ROUNDS=$rounds python3 - "${rows[@]}" <<'PY'
import os, shutil, sys, time

rows, cur = [], []
for a in sys.argv[1:]:
    if a == "--":
        rows.append((cur[0], cur[1:]))
        cur = []
    else:
        cur.append(a)
null = os.open(os.devnull, os.O_WRONLY)

def usage(argv):
    # posix_spawn, not fork: a fork of the interpreter would add its own
    # CPU to the child's (env execs the binary in the same process)
    t = time.monotonic()
    pid = os.posix_spawn(shutil.which(argv[0]) or argv[0], argv, os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, null, 1)])
    _, status, r = os.wait4(pid, 0)
    if status:
        sys.exit("%s failed (status %d)" % (" ".join(argv), status))
    return time.monotonic() - t, r.ru_utime + r.ru_stime, r.ru_maxrss

best = {}
for _ in range(int(os.environ["ROUNDS"])):
    for name, argv in rows:
        w, c, m = usage(argv)
        bw, bc, bm = best.get(name, (w, c, m))
        best[name] = (min(w, bw), min(c, bc), max(m, bm))
print("%-20s %8s %8s %8s %8s" % ("what", "cpu_s", "x wc -l", "wall_s", "peak_MB"))
for name, _ in rows:
    w, c, m = best[name]
    print("%-20s %8.3f %8.2f %8.3f %8.1f" % (name, c, c / best["wc -l"][1], w, m / 1024))
print()
def ratio(pre):
    s1, h1 = best[pre + "sorted 1"], best[pre + "shuffled 1"]
    s2, h2 = best[pre + "sorted"], best[pre + "shuffled"]
    return ("shuffled / sorted CPU: one thread %.2fx (goal <= 2), default threads %.2fx;"
            " wall, default threads %.2fx" % (h1[1] / s1[1], h2[1] / s2[1], h2[0] / s2[0]))
print(("after:  " if "before sorted" in best else "") + ratio(""))
if "before sorted" in best:
    print("before: " + ratio("before "))
PY
