#!/usr/bin/env bash
# Reproducible builds (suite 'release'): copy the source tree (its tracked and
# new files) into two folders of different names and depths, build the
# binary in each, and require byte-identical results. Prints TAP.
#
# usage: reproducible.sh SRCDIR
set -u
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

copy_to() { # copy_to DIR: the files git knows or would add (else all but build*/), nothing built
  mkdir -p "$1" || return 1
  if [ -e "$src/.git" ]; then   # a checkout of its own (not a tarball unpacked inside one)
    (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r cp --parents -t "$1")
  else
    tar -C "$src" --exclude='./build*' -cf - . | tar -C "$1" -xf -
  fi
}
build_in() { # build_in SRC: the binary alone, default build type (with debug info)
  meson setup "$1/build" "$1" >"$1.setup.log" 2>&1 &&
  ninja -C "$1/build" -j2 evalset >"$1.build.log" 2>&1
}
one=$tmp/a/evalset
two=$tmp/a-longer-folder-name/nested/evalset-copy
n=0 fail=0
# both copies first, so that both builds see one state of the tree
copy_to "$one" && copy_to "$two" || { echo "not ok 1 - copy the source tree"; echo "1..1"; exit 1; }
for d in "$one" "$two"; do
  n=$((n + 1))
  if build_in "$d"; then
    echo "ok $n - build in $d"
  else
    fail=1
    echo "not ok $n - build in $d"
    tail -n 20 "$d.setup.log" "$d.build.log" 2>/dev/null | sed 's/^/# /'
  fi
done
n=$((n + 1))
if [ "$fail" = 0 ] && cmp "$one/build/evalset" "$two/build/evalset"; then
  echo "ok $n - the two binaries are byte-identical"
else
  echo "not ok $n - the two binaries are byte-identical"
  [ "$fail" = 0 ] && for d in "$one" "$two"; do
    strings -a "$d/build/evalset" | grep -n "$tmp" | head -5 | sed 's/^/# /'
  done
fi
n=$((n + 1))
if [ "$fail" = 0 ] && ! grep -q -a -e "$tmp" -e "$src" "$one/build/evalset"; then
  echo "ok $n - no source or build path inside the binary"
else
  echo "not ok $n - no source or build path inside the binary"
fi
echo "1..$n"
