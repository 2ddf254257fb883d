#!/usr/bin/env bash
# Benchmark of `evalset score` and `compare` as the number of questions
# grows: is the cost linear? At each size N (default 7000 and 50000), a set
# of N questions (bench/gen-compare.py) and a TREC run of 100 results per
# question (one relevant chunk per question, found at a random rank or not
# at all) are made; then timed, best of 3, CPU seconds (user + sys):
#   floor      wc -l over the run
#   trec-eval  evalset trec-eval over the set's exported qrels and the run
#   score      evalset score SET@v1 RUN --save (binding, scoring, results)
#   score-r5   the same with -m R@5 only
#   score-doc  the same with -m R@5 -m DocR@5 -m DocSuccess@5 -m DocnDCG@10:
#              the ranking collapsed to documents for every question (the
#              run's ids have no document: each chunk is its own, every id
#              still looked up), against score-r5
#   score-judged  the same with --judged-only (every question scored twice,
#              the judged and the full results paired by question id)
#   check-res  evalset check SET@v1 with both saved results files (the
#              questions no run finds, each paired by id with its results)
#   report     evalset report SET@v1 with both saved results files, 1
#              resample and 1 permutation (-o a file)
#   power      evalset power SET@v1 with both saved results files (the
#              paired changes of every measure, each question paired by id)
#   compare    evalset compare SET@v1 with two saved results files, 1
#              resample and 1 permutation (loading, checking, pairing, and
#              the default gate's exact tests)
#   diff       evalset diff between v1 and v2 of the set (v2: one question's
#              text changed; every question of each version looked up in the
#              other by id)
#   add-jsonl  evalset add of the set's N questions, exported as JSONL, into
#              an empty set (each id checked against those before it, each
#              text against every text before it for near duplicates)
#   compare-full  the same compare with the defaults: the default gate and
#              10,000 resamples and permutations (timed once, not best of 3:
#              it takes tens of seconds at 50,000 questions)
# Prints each as seconds and as a ratio to the floor and to trec-eval, and
# the growth from the first size to the last per question (1.0: linear).
#
# usage: bench/score.sh [EVALSET] [N...]   (default: build/evalset 7000 50000)
# Not run by the test suite.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
evalset=${1:-$src/build/evalset}
evalset=$(cd "$(dirname "$evalset")" && pwd)/$(basename "$evalset")
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(7000 50000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# best of $reps (default 3): CPU seconds (user + sys, getrusage: microseconds) of "$@"
cpu() {
  local best=999999 c
  for _ in $(seq "${reps:-3}"); do
    c=$(python3 - "$@" <<'PY'
import resource, subprocess, sys
def used():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
before = used()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
print("%.4f" % (used() - before))
PY
)
    best=$(python3 -c "print(min($best, $c))")
  done
  echo "$best"
}

printf '%-8s %-12s %9s %9s %9s\n' N what cpu-s /floor /trec-eval
declare -A per
for n in "${sizes[@]}"; do
  rm -rf sets && mkdir -p sets/bench
  python3 "$src/bench/gen-compare.py" set sets/bench "$n"
  "$evalset" tag sets/bench v1 -m bench >/dev/null 2>&1
  sed -i '0,/text: /s/text: \(.*\)/text: \1 (edited)/' sets/bench/set.yaml
  "$evalset" tag sets/bench v2 -m edited >/dev/null 2>&1
  "$evalset" export sets/bench@v1 --format trec-qrels -o qrels --force >/dev/null
  for seed in 1 2; do
    python3 - "$n" "$seed" > "run$seed" <<'PY'
import random, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(seed)
out = []
for i in range(n):
    qid = "q-%05d" % (i + 1)
    rel = "c-%d" % i
    docs = ["c-%d" % d for d in rnd.sample(range(n, 11 * n), 100)]
    if rnd.random() < 0.8:
        docs[rnd.randrange(20)] = rel
    for r, d in enumerate(docs):
        out.append("%s Q0 %s %d %.4f bench\n" % (qid, d, r + 1, 100 - r * 0.5))
sys.stdout.write("".join(out))
PY
  done
  "$evalset" score sets/bench@v1 run1 --save base.json >/dev/null 2>&1
  "$evalset" score sets/bench@v1 run2 --save cand.json >/dev/null 2>&1
  floor=$(cpu wc -l run1)
  te=$(cpu "$evalset" trec-eval qrels run1)
  sc=$(cpu "$evalset" score sets/bench@v1 run1 --save out.json)
  r5=$(cpu "$evalset" score sets/bench@v1 run1 -m R@5 --save out.json)
  doc=$(cpu "$evalset" score sets/bench@v1 run1 -m R@5 -m DocR@5 -m DocSuccess@5 -m DocnDCG@10 --save out.json)
  judged=$(cpu "$evalset" score sets/bench@v1 run1 --judged-only --save out.json)
  chk=$(cpu "$evalset" check sets/bench@v1 --results base.json --results cand.json)
  rep=$(cpu "$evalset" report sets/bench@v1 base.json cand.json --resamples 1 --permutations 1 -o report.html)
  pow=$(cpu "$evalset" power sets/bench@v1 base.json cand.json)
  cmp=$(cpu "$evalset" compare sets/bench@v1 base.json cand.json --resamples 1 --permutations 1 --format json)
  dif=$(cpu "$evalset" diff sets/bench@v1 sets/bench@v2)
  "$evalset" export sets/bench@v1 --format jsonl -o bench.jsonl --force >/dev/null 2>&1
  addj=$(cpu bash -c 'rm -rf empty && "$1" init empty/ >/dev/null &&
    "$1" add empty/ --from-jsonl bench.jsonl' add "$evalset")
  full=$(reps=1 cpu "$evalset" compare sets/bench@v1 base.json cand.json --format json)
  for what in floor:$floor trec-eval:$te score:$sc score-r5:$r5 score-doc:$doc \
      score-judged:$judged check-res:$chk report:$rep power:$pow compare:$cmp \
      diff:$dif add-jsonl:$addj compare-full:$full; do
    w=${what%%:*} c=${what#*:}
    printf '%-8s %-12s %9.4f %9.1f %9.2f\n' "$n" "$w" "$c" \
      "$(python3 -c "print($c / max($floor, 0.001))")" "$(python3 -c "print($c / max($te, 0.001))")"
    per[$n:$w]=$c
  done
done
first=${sizes[0]} last=${sizes[${#sizes[@]}-1]}
if [ "$first" != "$last" ]; then
  for w in floor trec-eval score score-r5 score-doc score-judged check-res report power \
      compare diff add-jsonl compare-full; do
    printf 'growth per question, %s -> %s, %-12s %.2f (1.0: linear)\n' "$first" "$last" "$w" \
      "$(python3 -c "print((${per[$last:$w]} / $last) / max(${per[$first:$w]} / $first, 1e-9))")"
  done
fi
