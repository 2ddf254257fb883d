#!/usr/bin/env bash
# The steps of the GitHub Action (action.yml at the top of the repository),
# one subcommand per step, so that CI can run them as a plain script
# (tests/action/run.sh) and the workflow file holds no logic.
#
#   action.sh deps      install the Debian/Ubuntu packages (sudo when not root)
#   action.sh build     build evalset into $RUNNER_TEMP/evalset-build, put it on $GITHUB_PATH
#   action.sh score     score the candidate; the table goes to $GITHUB_STEP_SUMMARY
#   action.sh compare   compare baseline and candidate under the gate: summary,
#                       one annotation per gate rule, outputs 'passed' and
#                       'results'; exits with compare's code (1 = gate failed)
#
# Inputs come from the environment, as action.yml passes them: INPUT_SET,
# INPUT_BASELINE, INPUT_CANDIDATE, INPUT_GATE, INPUT_MEASURES (comma or space
# separated), INPUT_K, INPUT_WORKING_DIRECTORY; GitHub's own GITHUB_ACTION_PATH,
# RUNNER_TEMP, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY.
set -euo pipefail
action_path=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/.." && pwd)}
temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
build=$temp/evalset-build
evalset=${EVALSET:-$(command -v evalset || echo "$build/evalset")}

need() { # need NAME: the input must be given
  local v="INPUT_$1"
  [ -n "${!v:-}" ] || { echo "::error title=evalset::the input '$(echo "$1" | tr 'A-Z_' 'a-z-')' is required"; exit 2; }
}
measures() { # the -m options from INPUT_MEASURES
  local m
  for m in ${INPUT_MEASURES//,/ }; do printf -- '-m\n%s\n' "$m"; done
}

case "${1:-}" in
  deps)
    if [ "$(id -u)" = 0 ]; then "$action_path/tools/dev.sh" deps
    else sudo "$action_path/tools/dev.sh" deps; fi
    ;;
  build)
    [ -f "$build/build.ninja" ] ||
      meson setup "$build" "$action_path" --buildtype=release >"$temp/evalset-setup.log" 2>&1 ||
      { cat "$temp/evalset-setup.log"; exit 1; }
    ninja -C "$build" evalset >"$temp/evalset-build.log" 2>&1 || { cat "$temp/evalset-build.log"; exit 1; }
    "$build/evalset" --version | head -n 1
    [ -z "${GITHUB_PATH:-}" ] || echo "$build" >> "$GITHUB_PATH"
    ;;
  score)
    need SET; need CANDIDATE
    cd "${INPUT_WORKING_DIRECTORY:-.}"
    mapfile -t m < <(measures)
    {
      echo "### evalset score: \`$INPUT_CANDIDATE\` on \`$INPUT_SET\`"
      echo
      "$evalset" score "$INPUT_SET" "$INPUT_CANDIDATE" ${INPUT_K:+--k "$INPUT_K"} "${m[@]}" --format markdown
      echo
    } > "$temp/evalset-score.md"
    cat "$temp/evalset-score.md"
    [ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$temp/evalset-score.md" >> "$GITHUB_STEP_SUMMARY"
    ;;
  compare)
    need SET; need BASELINE; need CANDIDATE
    cd "${INPUT_WORKING_DIRECTORY:-.}"
    mapfile -t m < <(measures)
    json=$temp/evalset-compare.json
    rc=0
    # the annotations come from the JSON below, once per rule: evalset's own
    # (it writes them under GITHUB_ACTIONS=true) would repeat every failure
    GITHUB_ACTIONS=false "$evalset" compare "$INPUT_SET" "$INPUT_BASELINE" "$INPUT_CANDIDATE" \
      ${INPUT_GATE:+--gate "$INPUT_GATE"} ${INPUT_K:+--k "$INPUT_K"} "${m[@]}" \
      --format json --markdown "$temp/evalset-compare.md" --junit "$temp/evalset-compare.xml" \
      > "$json" || rc=$?
    if [ "$rc" -gt 1 ]; then
      echo "::error title=evalset compare::could not compare (exit $rc): see the log above"
      exit "$rc"
    fi
    [ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$temp/evalset-compare.md" >> "$GITHUB_STEP_SUMMARY"
    # one annotation per gate rule: an error when it failed, a notice when it passed
    python3 - "$json" "${INPUT_GATE:-}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
gate = d.get("gate") or {}
def esc(s):
    return str(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
note = (d.get("set") or {}).get("note")
if note:
    print(f"::warning title=evalset compare::{esc(note)}")
for r in gate.get("rules", []):
    kind = "notice" if r.get("pass") else "error"
    title = f"gate {'passed' if r.get('pass') else 'FAILED'}: {r.get('measure')} on {r.get('subset', 'all')}"
    props = [f"file={sys.argv[2]}"] if sys.argv[2] else []
    props.append("title=" + esc(title).replace(",", "%2C").replace(":", "%3A"))
    print(f"::{kind} {','.join(props)}::{esc(r.get('why', ''))}")
PY
    if [ -n "${GITHUB_OUTPUT:-}" ]; then
      { [ "$rc" = 0 ] && echo "passed=true" || echo "passed=false"; echo "results=$json"; } >> "$GITHUB_OUTPUT"
    fi
    [ "$rc" = 0 ] && echo "evalset: the gate passed" || echo "evalset: the gate failed"
    exit "$rc"
    ;;
  *)
    sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
