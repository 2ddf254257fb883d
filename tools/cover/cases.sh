#!/usr/bin/env bash
# The order of the CLI cases by what each adds to the code of evalset that
# the cases reach, for the builds that run only a part of them.
#
# Builds build-cover (clang, -fsanitize-coverage=trace-pc-guard, with the
# runtime tools/cover/guards.c), runs each case of tests/cli/cases alone with
# its own EVALSET_COVER_DIR (two at a time), so that every evalset process of
# the case leaves the edges of the program it took (kept in
# build-cover/cases/), and then tools/cover/select.py orders the cases,
# greedily, the most new edges per second first, into
# tests/cli/cover-order.txt. tests/cli/run.sh, given EVALSET_CLI_COVER=P,
# runs the cases of that order up to the first that brings the edges reached
# to P% (tests/meson.build: 100 under the sanitizers, 90 under an emulator);
# the plain build runs every case.
#
# Rerun after adding cases, or after changes that move what they reach:
#   tools/cover/cases.sh        (about 3 minutes on 2 cores)
# A case added since is not in the file, so every build runs it.
#
# usage: tools/cover/cases.sh [BUILD_DIR]   (default build-cover)
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src"
dir=${1:-build-cover}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

clang -O2 -Wall -Wextra -Werror -c tools/cover/guards.c -o "$work/guards.o"
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cp "$work/guards.o" "$dir/guards.o"
if [ ! -f "$dir/build.ninja" ]; then
  CC=clang meson setup "$dir" -Dc_args=-fsanitize-coverage=trace-pc-guard \
    -Dc_link_args="$dir/guards.o" > "$work/setup.log" 2>&1 || { cat "$work/setup.log"; exit 1; }
fi
ninja -C "$dir" > "$work/ninja.log" 2>&1 || { cat "$work/ninja.log"; exit 1; }

# the edges of each case, kept in the build folder for select.py
rm -rf "$dir/cases"
mkdir "$dir/cases"
one() { # one NAME: the case alone, its edges in $dir/cases/NAME, its seconds in NAME.time
  local name=$1 t0 t1 rc=0
  mkdir "$dir/cases/$name"
  t0=$(date +%s.%N)
  EVALSET_SRC=$src EVALSET_COVER_DIR=$dir/cases/$name \
    bash tests/cli/run.sh "$dir/evalset" tests/cli/cases "$name" > "$dir/cases/$name.tap" 2>&1 || rc=$?
  t1=$(date +%s.%N)
  echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' > "$dir/cases/$name.time"
  [ "$rc" = 0 ] || { echo "case $name failed in the coverage build:"; cat "$dir/cases/$name.tap"; } >&2
  return "$rc"
}
export -f one
export src dir work
ls tests/cli/cases | xargs -P 2 -I{} bash -c 'one "$1"' _ {}
python3 tools/cover/select.py "$dir/cases" tests/cli/cases > "$work/order"
mv "$work/order" tests/cli/cover-order.txt
grep '^#' tests/cli/cover-order.txt | tail -n 1
