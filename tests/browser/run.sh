#!/usr/bin/env bash
# Browser test of `evalset report`, printing TAP (suite "browser").
#
# usage: run.sh EVALSET ARTIFACTS_DIR [SHOTS_DIR]
#
# Builds two reports in a scratch directory: the demo (sets/squad-demo, BM25
# with stemming as the candidate against BM25 without, both from
# `evalset run`; left out when the tree has no demo set), and the escaping
# fixture (fixtures/evil, whose every string tries to become markup). check-report.mjs then loads each in headless
# Chromium (Debian's chromium package, through playwright-core installed
# from tests/browser/package-lock.json), screenshots it into ARTIFACTS_DIR,
# and compares the page's numbers with `evalset score --format json` at
# k = 5 (as rendered), 1 and 10 (after moving the slider). It drives the
# question table with the mouse and the keyboard (a whole word typed into
# its search, each status filter checked against `evalset compare --format
# json`, a subset, two sorts, a question shown at the cutoff), checks the
# charts' layout, the page printed, no sideways scroll at 375 and 640 px,
# and runs axe-core at 1280 and 375 px in the light and dark schemes.
# The demo's screenshots go to SHOTS_DIR too when given (docs/report.md's).
#
# Skips (TAP "1..0 # SKIP") only when chromium or node is missing; every
# other problem is a failure.
set -u
evalset=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
artifacts=$2
shots=${3:+$(realpath -m "$3")}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)

. "$here/lib.sh"
browser_prereqs

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log=$tmp/setup.log
: > "$log"
browser_npm "$log"

mkdir -p "$artifacts" "$tmp/work/sets" "$tmp/profile"
cd "$tmp/work"

# score_json SET RUN K OUT: the five slider measures at cutoff K, as score gives them
score_json() {
  "$evalset" score "$1" "$2" -m "P@$3" -m "R@$3" -m "Success@$3" -m RR -m "nDCG@$3" \
    --format json > "$4" 2>> "$log"
}

# build NAME SETDIR: tag the set, make the two runs, the report and score's numbers
build() {
  local name=$1 set=$2
  case $name in
    demo)
      # runs are bound to the questions they were made for: make them on v1
      "$evalset" run "$set@v1" --bm25 --no-stem -k 100 -o base.jsonl >> "$log" 2>&1 &&
      "$evalset" run "$set@v1" --bm25 --stem -k 100 -o cand.jsonl >> "$log" 2>&1 || return 1
      runs=(base.jsonl cand.jsonl); gate=() ;;
    evil)
      # three questions: too few for a test, so a plain threshold
      runs=("$set/base.jsonl" "$set/cand.jsonl"); gate=(--gate "$set/gate.yaml") ;;
  esac
  if [ ! -f "$set/versions/v1.yaml" ]; then
    "$evalset" tag "$set" v1 -m "browser test" >> "$log" 2>&1 || return 1
  fi
  # baseline then candidate, as compare; exit 1 (gate failed) still writes the page
  local rc=0
  "$evalset" report "$set@v1" "${runs[@]}" "${gate[@]}" -o "$name.html" >> "$log" 2>&1 || rc=$?
  [ $rc -le 1 ] || return 1
  for k in 1 5 10; do
    score_json "$set@v1" "${runs[1]}" "$k" "$name-k$k.json" || return 1
  done
  "$evalset" compare "$set@v1" "${runs[@]}" "${gate[@]}" --k 5 --show 100000 --resamples 200 --permutations 200 --format json > "$name-compare.json" 2>> "$log"
  [ -s "$name-compare.json" ] || return 1
  cp "$name.html" "$artifacts/$name.html"
}

# the demo when the tree has it; the fixture always (it is the escaping test)
demo=0
if [ -f "$src/sets/squad-demo/set.yaml" ]; then
  demo=1
  cp -a "$src/sets/squad-demo" sets/squad-demo
fi
cp -a "$here/fixtures/evil" sets/evil
rm -rf sets/*/.evalset
if [ $demo = 1 ]; then
  build demo sets/squad-demo || fail_setup "the demo report builds (evalset run, tag, report, score)" "$log"
fi
build evil sets/evil || fail_setup "the escaping fixture's report builds" "$log"
# the same page with a script and an inline handler injected, as if escaping
# had failed: the page's Content-Security-Policy must stop both
sed 's|^<body>$|<body><script>window.__pwned = 1; document.title = "INJECTED";</script><img src="data:," onload="window.__pwned = 2" onerror="window.__pwned = 3">|' \
  evil.html > injected.html
grep -q '__pwned = 1' injected.html || fail_setup "the injected copy of the report is made" "$log"
cp injected.html "$artifacts/injected.html"

node - "$tmp/work" "$artifacts" "$chromium" "$tmp/profile" "$demo" "$shots" > config.json 2>> "$log" <<'JS' ||
const fs = require('fs'), path = require('path');
const [work, artifacts, chromium, profile, demo, shots] = process.argv.slice(2);
// score --format json: the means are under "aggregate" (core/score/results.h)
const agg = (f) => {
  const j = JSON.parse(fs.readFileSync(path.join(work, f), 'utf8'));
  const a = j.aggregate || (j.results && j.results.aggregate);
  if (!a) throw new Error(`${f}: no "aggregate" in score's JSON`);
  return a;
};
const expect = (name) => ({ 1: agg(`${name}-k1.json`), 5: agg(`${name}-k5.json`), 10: agg(`${name}-k10.json`) });
const charts = ['chart-recall', 'chart-forest', 'chart-subsets', 'chart-findrank'];
const pages = [];
if (demo === '1')
  pages.push({ name: 'demo', file: path.join(work, 'demo.html'), artifacts,
               title: 'evalset report: sets/squad-demo@v1', charts, k: 5, expect: expect('demo'),
               score: path.join(work, 'demo-k5.json'), compare: path.join(work, 'demo-compare.json'),
               word: 'warsaw', subset: 'tag=hard', shots: shots || undefined });
pages.push(
  { name: 'evil', file: path.join(work, 'evil.html'), artifacts, title: 'evalset report: sets/evil@v1',
    charts, k: 5, expect: expect('evil'),
    score: path.join(work, 'evil-k5.json'), compare: path.join(work, 'evil-compare.json'), word: 'alpha',
    escape: ['<script>alert(1)</script> what is alpha?', '"><img src=x onerror=alert(2)> where is beta?',
             'c-"><svg onload=alert(3)>', '</script><script>alert(4)</script>', '<script>alert(5)</script>',
             '<b>bold</b>', 'end <U+202E>evil<U+200B>'] },
  { name: 'injected', file: path.join(work, 'injected.html'), artifacts, title: 'evalset report: sets/evil@v1',
    charts, k: 5, expect: expect('evil'), injected: true });
console.log(JSON.stringify({ chromium, profile, pages }));
JS
  fail_setup "score's JSON gives the expected measures" "$log"

node "$here/check-report.mjs" config.json
