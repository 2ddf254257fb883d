#!/usr/bin/env bash
# Browser test of `evalset review`, printing TAP (suite "browser").
#
# usage: review.sh EVALSET ARTIFACTS_DIR [SHOTS_DIR]
#
# Starts two review servers in a scratch directory: one on a copy of the
# demo set (sets/squad-demo, with its corpus for the BM25 top 5) and one on
# a pool worksheet pooled from two BM25 runs of it, where some pairs carry
# an LLM judge's grade. check-review.mjs then reviews questions and grades
# the pool in headless Chromium with the keys and with the mouse, checks the
# files afterwards with `evalset show` and the pool YAML, and checks that a
# stale page's write is refused. Screenshots go to ARTIFACTS_DIR, and to
# SHOTS_DIR too when given: `tests/browser/review.sh build/evalset DIR docs`
# rewrites the review screenshots of docs/.
#
# Skips (TAP "1..0 # SKIP") only when chromium or node is missing.
set -u
evalset=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
artifacts=$2
shots=${3:+$(realpath -m "$3")}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
. "$here/lib.sh"
browser_prereqs

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
log=$tmp/setup.log
: > "$log"
browser_npm "$log"
mkdir -p "$artifacts" "$tmp/work/sets" "$tmp/profile"
cd "$tmp/work"
cp -a "$src/sets/squad-demo" sets/squad-demo
rm -rf sets/squad-demo/.evalset

# the pool: two runs of the demo, five questions, depth 2; the judge has
# graded every other pair (grade = position mod 4, a reason per pair)
{
  "$evalset" run sets/squad-demo@v1 --bm25 -k 5 -o a.jsonl &&
  "$evalset" run sets/squad-demo@v1 --bm25 --stem -k 5 -o b.jsonl &&
  "$evalset" pool sets/squad-demo@v1 a.jsonl b.jsonl --depth 2 -o full.yaml
} >> "$log" 2>&1 || fail_setup "the pool builds (evalset run, pool)" "$log"
python3 - full.yaml pool.yaml >> "$log" 2>&1 <<'PY' || fail_setup "the pool fixture is written" "$log"
import re, sys
text = open(sys.argv[1]).read()
head, _, body = text.partition("questions:\n")
qs = re.split(r"(?m)^(?=- id: )", body)
keep = [q for q in qs if q.strip() and "- chunk:" in q][:4]
out, n = [], 0
for q in keep:
    lines = []
    for line in q.splitlines(True):
        lines.append(line)
        if line.startswith("    grade: null"):
            if n % 2 == 0:
                g = (n // 2) % 4
                lines[-1] = "    grade: %d\n    judge: llm:fake-judge\n    reason: 'judge reason %d <b>x</b>'\n" % (g, n)
            n += 1
    out.append("".join(lines))
open(sys.argv[2], "w").write(head + "questions:\n" + "".join(out))
PY

# a question whose text holds a right-to-left override (U+202E ... U+202C):
# the page must show the marks, not read "gnp.exe" as "exe.png"
"$evalset" add sets/squad-demo --text $'gamma \u202egnp.exe\u202c: which file is it?' --unanswerable > hidden.out 2>> "$log" ||
  fail_setup "a question with hidden characters is added" "$log"
sed -n 's/^added \(q-[0-9]*\)$/\1/p' hidden.out > hidden.id

# start_review NAME ARG: a server in the background; its address in NAME.url
start_review() {
  local name=$1 arg=$2
  EVALSET_REVIEWER=browser-test "$evalset" review "$arg" > "$name.out" 2> "$name.err" &
  pids+=($!)
  for _ in $(seq 1 100); do
    grep -q '^review: http' "$name.out" 2>/dev/null && break
    sleep 0.1
  done
  sed -n 's/^review: \(http[^ ]*\)$/\1/p' "$name.out" > "$name.url"
  [ -s "$name.url" ] || { cat "$name.err" >> "$log"; fail_setup "evalset review $arg prints its address" "$log"; }
}
start_review set sets/squad-demo
start_review pool pool.yaml

node - "$tmp/work" "$artifacts" "$chromium" "$tmp/profile" "$evalset" "$shots" > config.json 2>> "$log" <<'JS' ||
const fs = require('fs'), path = require('path');
const [work, artifacts, chromium, profile, evalset, shots] = process.argv.slice(2);
const url = (n) => fs.readFileSync(path.join(work, n + '.url'), 'utf8').trim();
console.log(JSON.stringify({ work, artifacts, chromium, profile, evalset, shots,
  set: { url: url('set'), dir: path.join(work, 'sets/squad-demo'), hidden: fs.readFileSync(path.join(work, 'hidden.id'), 'utf8').trim() },
  pool: { url: url('pool'), file: path.join(work, 'pool.yaml') } }));
JS
  fail_setup "the test's configuration is written" "$log"

node "$here/check-review.mjs" config.json
