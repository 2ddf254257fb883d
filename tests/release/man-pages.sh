#!/usr/bin/env bash
# Man pages (suite 'release'): the pages committed under docs/man/man1 are the
# ones docs/man/mkman.sh writes from this binary's -h today. The build installs
# the committed pages without running the binary; this test is what keeps
# them current. Prints TAP.
#
# usage: man-pages.sh EVALSET SRCDIR
set -u
evalset=$1 src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if bash "$src/docs/man/mkman.sh" "$evalset" "$src" "$tmp/man1" 2>"$tmp/err" &&
   diff -r -u "$src/docs/man/man1" "$tmp/man1" > "$tmp/diff"; then
  echo "ok 1 - docs/man/man1 matches the commands' -h"
else
  echo "not ok 1 - docs/man/man1 matches the commands' -h (run tools/dev.sh man and commit docs/man/man1)"
  cat "$tmp/err" "$tmp/diff" | head -40 | sed 's/^/# /'
fi
echo "1..1"
