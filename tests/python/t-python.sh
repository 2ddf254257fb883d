#!/usr/bin/env bash
# The Python front door (suite 'python', docs/python.md), from the source
# tree alone and offline: copy the tree, build a wheel with
# `python -m build --no-isolation`, `pip install --no-build-isolation` it
# into a fresh virtual environment (--system-site-packages, for Debian's
# meson-python and pytest), then check what a Python user relies on:
#   - the wheel holds the binary, its prompts and the package;
#   - `import evalset` finds the installed binary, whose version it has;
#   - the installed binary finds its prompts in the environment;
#   - evalset.run, score and compare on the demo set (suite/test_api.py).
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

echo "1..$n"
[ "$failed" -eq 0 ]
