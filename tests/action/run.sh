#!/usr/bin/env bash
# The GitHub Action's steps (action.yml, through tools/action.sh) run as a
# plain script, the way the runner would run them: install, build, then on
# the demo set a candidate equal to the baseline (the gate passes: exit 0,
# notices, passed=true) and one that lost half its results (the gate fails:
# exit 1, an error annotation, passed=false). Both write the step summary.
#
# usage: run.sh SRCDIR     (CI runs it from .ci/run; needs root or sudo for deps)
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GITHUB_ACTION_PATH=$src RUNNER_TEMP=$tmp/runner GITHUB_PATH=$tmp/path
export GITHUB_OUTPUT=$tmp/output GITHUB_STEP_SUMMARY=$tmp/summary GITHUB_ACTIONS=true
mkdir -p "$RUNNER_TEMP"
: > "$GITHUB_PATH"; : > "$GITHUB_OUTPUT"; : > "$GITHUB_STEP_SUMMARY"
step() { bash "$src/tools/action.sh" "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

step deps
step build
bin=$(cat "$GITHUB_PATH")
[ -x "$bin/evalset" ] || fail "the build step put no evalset on GITHUB_PATH"
export PATH=$bin:$PATH

# the user's repository: the demo set, a baseline and two candidates
mkdir -p "$tmp/repo/sets" && cp -r "$src/sets/squad-demo" "$tmp/repo/sets/"
cd "$tmp/repo"
evalset run squad-demo@v1 -o baseline.jsonl >/dev/null
evalset score squad-demo@v1 baseline.jsonl --save baseline.json >/dev/null
cp baseline.jsonl same.jsonl
python3 - <<'PY'
import json
with open("baseline.jsonl") as f, open("worse.jsonl", "w") as out:
    for i, line in enumerate(f):
        o = json.loads(line)
        if "results" in o and i % 2:
            o["results"] = o["results"][5:]   # pushed out of the top 5
        out.write(json.dumps(o) + "\n")
PY

export INPUT_SET=squad-demo@v1 INPUT_BASELINE=baseline.json INPUT_GATE=sets/squad-demo/gate.yaml
export INPUT_MEASURES="R@5, nDCG@10" INPUT_WORKING_DIRECTORY=.
INPUT_CANDIDATE=same.jsonl step score > score.log
grep -q '^| R@5 ' "$GITHUB_STEP_SUMMARY" || fail "the score step wrote no R@5 row to the summary"

rc=0; INPUT_CANDIDATE=same.jsonl step compare > pass.log || rc=$?
[ "$rc" = 0 ] || { cat pass.log; fail "an unchanged candidate: compare exit $rc, want 0"; }
grep -q '^::notice file=sets/squad-demo/gate.yaml,title=gate passed%3A R@5' pass.log || { cat pass.log; fail "no notice for the passed R@5 rule"; }
grep -q '^passed=true$' "$GITHUB_OUTPUT" || fail "no passed=true output"

: > "$GITHUB_OUTPUT"
rc=0; INPUT_CANDIDATE=worse.jsonl step compare > fail.log 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat fail.log; fail "a candidate that lost half its top 5: compare exit $rc, want 1"; }
grep -q '^::error file=sets/squad-demo/gate.yaml,title=gate FAILED%3A R@5' fail.log || { cat fail.log; fail "no error annotation for the failed R@5 rule"; }
grep -q '^passed=false$' "$GITHUB_OUTPUT" || fail "no passed=false output"
# the runner shows every ::error line of the log: each failed rule once
n=$(grep -c '^::error.*R@5 on all::max_drop' fail.log || true)
[ "$n" = 1 ] || { cat fail.log; fail "the failed R@5 rule is annotated $n times, want once"; }
[ "$(grep -c 'R@5' "$GITHUB_STEP_SUMMARY")" -ge 3 ] || fail "the summary lacks the comparison tables"
echo "action steps: install, build, score, compare (pass and fail), summary, annotations and outputs all as expected"
