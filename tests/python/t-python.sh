#!/usr/bin/env bash
# The Python front door (suite 'python', docs/python.md), from the source
# tree alone and offline: copy the tree, build a wheel with
# `python -m build --no-isolation`, `pip install --no-build-isolation` it
# into a fresh virtual environment (--system-site-packages, for Debian's
# meson-python and pytest), then check what a Python user relies on:
#   - the wheel holds the binary, its prompts and the package;
#   - `import evalset` finds the installed binary, whose version it has;
#   - the installed binary finds its prompts in the environment;
#   - evalset.run, score and compare on the demo set (suite/test_api.py);
#   - the pytest plugin: a toy BM25 retriever passes its gate, a broken one
#     fails with the gate's rule lines and lost questions; the baseline is
#     written by --evalset-update-baseline; compare's Markdown and JUnit.
#
# usage: t-python.sh SRCDIR PYTHON VERSION
#   PYTHON: the interpreter meson runs under (it has meson-python);
#   VERSION: meson.build's project version.
# Prints TAP. Skips when python3-mesonpy, python3-build, python3-pytest,
# python3-venv or patchelf is missing (tools/dev.sh deps test installs them).
set -u
src=$(cd "$1" && pwd)
python=$2
version=$3
unset MESON_BUILD_ROOT MESON_SOURCE_ROOT MESONINTROSPECT EVALSET_BIN EVALSET_PROMPT_DIR EVALSET_CONFIG
for m in mesonpy build pytest venv ensurepip; do
  "$python" -c "import $m" 2>/dev/null ||
    { echo "1..0 # SKIP $python lacks the module $m (python3-mesonpy python3-build python3-pytest python3-venv)"; exit 0; }
done
command -v patchelf >/dev/null || { echo "1..0 # SKIP no patchelf (meson-python wants it)"; exit 0; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
check() {  # check DESCRIPTION COMMAND...
  n=$((n + 1))
  if "${@:2}" >"$tmp/check.out" 2>&1; then
    echo "ok $n - $1"
  else
    failed=$((failed + 1))
    echo "not ok $n - $1"
    sed 's/^/#   /' "$tmp/check.out" | tail -25
  fi
}

# a clean copy of the tree: no build folders, no git, nothing of an earlier pip
mkdir "$tmp/src"
(cd "$src" && tar --exclude='./build*' --exclude=./.git --exclude='./.mesonpy*' --exclude=./dist \
  -cf - .) | tar -xf - -C "$tmp/src"

wheel() {
  (cd "$tmp/src" && "$python" -m build --no-isolation --wheel -Cbuilddir="$tmp/wb" \
    --outdir "$tmp/dist" . >"$tmp/build.log" 2>&1) || { tail -30 "$tmp/build.log"; return 1; }
  "$python" - "$tmp/dist"/evalset-"$version"-*.whl <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
want = ["scripts/evalset", "purelib/evalset/__init__.py", "purelib/evalset/_version.py",
        "data/evalset/prompts/generate-factoid.md", "data/evalset/presets/langfuse.preset"]
missing = [w for w in want if not any(n.endswith(w) for n in names)]
assert not missing, "the wheel lacks %s" % missing
PY
}
check "python -m build --no-isolation --wheel makes a wheel with the binary, its data and the package" wheel

venv=$tmp/venv
install() {
  "$python" -m venv --system-site-packages "$venv" || return 1
  # the same build folder as the wheel's: meson reconfigures, nothing is rebuilt
  "$venv/bin/pip" install --no-build-isolation --no-index --config-settings builddir="$tmp/wb" \
    "$tmp/src" >"$tmp/pip.log" 2>&1 || { tail -30 "$tmp/pip.log"; return 1; }
  test -x "$venv/bin/evalset"
}
check "pip install --no-build-isolation installs into a fresh venv, offline" install

mkdir "$tmp/elsewhere"
version_check() {
  (cd "$tmp/elsewhere" && "$venv/bin/python" - "$version" "$venv/bin/evalset" <<'PY'
import subprocess, sys, evalset
want, exe = sys.argv[1], sys.argv[2]
assert evalset.__version__ == want, (evalset.__version__, want)
assert evalset.binary() == exe, (evalset.binary(), exe)
line = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
assert line.split()[:2] == ["evalset", want], line
print("evalset", evalset.__version__, "at", evalset.binary())
PY
  )
}
check "import evalset: __version__ is the binary's, and it drives the venv's binary" version_check
prompts_check() {
  (cd "$tmp/elsewhere" && "$venv/bin/evalset" config | grep -E "^prompt_dir +$venv/bin/../evalset/prompts +built-in$") &&
    test -f "$venv/evalset/prompts/generate-factoid.md"
}
check "the venv's binary finds the prompts the wheel installed" prompts_check

# the API on the demo set, from the top of the copied tree (sets/squad-demo)
api() {
  (cd "$tmp/src" && "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/python/suite/test_api.py)
}
check "evalset.run, score and compare drive the binary (tests/python/suite/test_api.py)" api

# The pytest plugin, as a team uses it (suite/gate/test_gate.py: the toy
# BM25 and a broken copy, both gated against the toy's baseline), run in a
# pytest subprocess whose outcome and messages are checked.
gate_pytest() {  # gate_pytest LOG PYTEST-ARGS...: the exit code of pytest
  local log=$1; shift
  (cd "$tmp/src" && PYTHONPATH=tests/python/suite "$venv/bin/python" -m pytest -p no:cacheprovider --rootdir . -rA \
    tests/python/suite/gate "$@") >"$log" 2>&1
}
no_baseline() {
  gate_pytest "$tmp/g0.log"; local rc=$?
  [ "$rc" = 1 ] && grep -q "no baseline 'baselines/toy-bm25.jsonl': write it from this retriever with pytest --evalset-update-baseline" "$tmp/g0.log" ||
    { echo "exit $rc"; tail -20 "$tmp/g0.log"; return 1; }
}
check "a gate without its baseline fails, saying how to write it" no_baseline
update_refused() {
  gate_pytest "$tmp/g1.log" --evalset-update-baseline -k broken; local rc=$?
  [ "$rc" = 1 ] && grep -q "not writing the baseline 'baselines/toy-bm25.jsonl': the retriever answered 172 of 173 questions (1 raised: q-0002: RuntimeError: index shard 3 unavailable)" "$tmp/g1.log" &&
    [ ! -e "$tmp/src/baselines/toy-bm25.jsonl" ] || { echo "exit $rc"; tail -20 "$tmp/g1.log"; return 1; }
}
check "--evalset-update-baseline refuses a retriever that raised" update_refused
update() {
  gate_pytest "$tmp/g2.log" --evalset-update-baseline -k toy || { tail -20 "$tmp/g2.log"; return 1; }
  head -1 "$tmp/src/baselines/toy-bm25.jsonl" | grep -q '"retriever":"python retrievers.toy_bm25".*"complete":true'
}
check "--evalset-update-baseline writes the baseline from the retriever" update
gates() {
  gate_pytest "$tmp/g3.log" --evalset-markdown "$tmp/summary.md" --evalset-junit "$tmp/junit"; local rc=$?
  local log=$tmp/g3.log bad=0
  [ "$rc" = 1 ] || { echo "pytest exit $rc, want 1"; bad=1; }
  grep -q "^PASSED tests/python/suite/gate/test_gate.py::test_toy_bm25" "$log" || { echo "the toy BM25 did not pass"; bad=1; }
  grep -q "^FAILED tests/python/suite/gate/test_gate.py::test_broken_bm25" "$log" || { echo "the broken one did not fail"; bad=1; }
  # the failure's message: the verdict, the rule lines as compare prints them, the lost questions
  for want in "gate FAILED: 3 of 6 rules" " FAIL  max_drop 0.02 test drop: drop " "  R@5 0." \
      "  nDCG@10 0." " pass  max_drop 0.05 test drop: " "  Decline " \
      "  coverage 1 newly missing FAIL  allow_missing 0: the candidate misses 1 question the baseline answered" \
      "lost from the top 5: " "  q-0001  rank 1 -> -  When did Warsaw become the center of the Congress Poland?" \
      "the retriever raised on 1 question: q-0002: RuntimeError: index shard 3 unavailable"; do
    grep -qF -- "$want" "$log" || { echo "the message lacks: $want"; bad=1; }
  done
  # each rule line headline first: the measure, baseline -> candidate (delta), the verdict
  grep -qE -- "  R@5 0\.[0-9]{4} -> 0\.[0-9]{4} \(-0\.[0-9]{4}\) FAIL  max_drop 0\.02 test drop: drop 0\." "$log" ||
    { echo "the R@5 rule line does not lead with its change and verdict"; bad=1; }
  # CI output: compare's own Markdown summary and JUnit, one per gate
  [ "$(grep -c '^### evalset compare: squad-demo@v1' "$tmp/summary.md")" = 2 ] &&
    grep -qE '^\| R@5 \| 0\.[0-9]{4} → 0\.[0-9]{4} \(-0\.[0-9]{4}\) \| \*\*FAIL\*\* \| max' "$tmp/summary.md" || { echo "the Markdown summary is not compare's"; bad=1; }
  grep -q '<failure' "$tmp/junit/tests_python_suite_gate_test_gate.py_test_broken_bm25.xml" &&
    ! grep -q '<failure' "$tmp/junit/tests_python_suite_gate_test_gate.py_test_toy_bm25.xml" ||
    { echo "the JUnit files are not compare's"; ls "$tmp/junit"; bad=1; }
  [ "$bad" = 0 ] || { tail -40 "$log"; return 1; }
}
check "the toy BM25 passes its gate; the broken one fails with the rule lines and the lost questions" gates

# docs/python.md's whole loop, run as written
doc_loop() {
  "$venv/bin/python" - "$tmp/src/docs/python.md" >"$tmp/loop.py" <<'PY' || return 1
import re, sys
text = open(sys.argv[1]).read()
loop = text.split("## The whole loop", 1)[1]
print(re.search(r"```python\n(.*?)```", loop, re.S).group(1))
PY
  (cd "$tmp/src" && PYTHONPATH=tests/python/suite "$venv/bin/python" "$tmp/loop.py") >"$tmp/loop.log" 2>&1 &&
    grep -q "^gate passed" "$tmp/loop.log" && grep -q "tag=hard" "$tmp/loop.log" &&
    grep -q "^### evalset compare" "$tmp/src/gate.md" || { cat "$tmp/loop.py"; tail -20 "$tmp/loop.log"; return 1; }
}
check "docs/python.md's whole loop runs as written" doc_loop

echo "1..$n"
[ "$failed" -eq 0 ]
