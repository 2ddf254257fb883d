#!/usr/bin/env bash
# Reproducible builds (suite 'release'): a copy of the source tree (its
# tracked and new files), in another folder, must build the same binary,
# byte for byte, with no source or build path inside. Prints TAP.
#
# usage: reproducible.sh SRCDIR [BUILDDIR]
#
# With BUILDDIR (the build under test, a setup of SRCDIR), one copy is set
# up as BUILDDIR was: its command-line options (meson-private/cmd_line.txt),
# its compiler and its `git describe` (tools/version.sh of SRCDIR, given to
# the copy, which has no .git, as the vcs_tag option), and its place
# relative to the sources (the binary names its sources relative to the
# build folder: ../cmd/main.c from SRCDIR/build, ../dist-unpack/NAME/cmd/
# main.c from the build of `meson dist`), under a folder of another name.
# Its binary is compared with BUILDDIR's evalset. When BUILDDIR and SRCDIR
# share no folder but the root, or the copy's configuration still differs
# from BUILDDIR's (a cross or native file, an option set outside the
# command line), the script says so and builds a second copy instead, as
# it does without BUILDDIR: two fresh builds, compared with each other.
# Last, a vcs_tag that would end the C string it goes into must be refused
# at setup.
set -u
src=$(cd "$1" && pwd)
tested=${2:+$(cd "$2" && pwd)}
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
setup_in() { # setup_in SRC BUILD [meson options...]
  local d=$1 b=$2; shift 2
  meson setup "$b" "$d" "$@" >"$b.setup.log" 2>&1
}
build_in() { # build_in BUILD: the binary alone
  ninja -C "$1" -j2 evalset >"$1.build.log" 2>&1
}
# mirrored: the copy's source folder and build folder, on two lines: under
# $tmp/m, as SRCDIR and BUILDDIR lie under the deepest folder they share;
# fails when that folder is the root
mirrored() {
  python3 - "$src" "$tested" "$tmp/m" <<'EOF'
import os, sys
s, b, a = sys.argv[1:]
common = os.path.commonpath([s, b])
if common == os.path.dirname(common):
    sys.exit(1)
print(os.path.normpath(os.path.join(a, os.path.relpath(s, common))))
print(os.path.join(a, os.path.relpath(b, common)))
EOF
}
# like_tested: BUILDDIR's compiler on the first line, then one meson
# argument a line: its command-line options and the vcs_tag it was built
# with (its own option's, else SRCDIR's describe); fails when BUILDDIR was
# set up with a cross or native file
like_tested() {
  python3 - "$tested" "$(sh "$src/tools/version.sh" "$src")" <<'EOF'
import configparser, json, sys
build, describe = sys.argv[1], sys.argv[2]
targets = json.load(open(build + "/meson-info/intro-targets.json"))
cc = [t for t in targets if t["name"] == "evalset"][0]["target_sources"][0]["compiler"]
cmd = configparser.ConfigParser(interpolation=None)
cmd.read(build + "/meson-private/cmd_line.txt")
if cmd.has_section("properties") and any(cmd["properties"].values()):
    sys.exit(1)
print(" ".join(cc))
options = dict(cmd["options"]) if cmd.has_section("options") else {}
for k, v in options.items():
    if k != "vcs_tag":
        print(f"-D{k}={v.lower() if v in ('True', 'False') else v}")
# the tag BUILDDIR was given, else the describe it took from SRCDIR's .git
print(f"-Dvcs_tag={options.get('vcs_tag') or describe}")
EOF
}
# configuration DIR: DIR's build options (but vcs_tag) and its compiler, to compare
configuration() {
  python3 - "$1" <<'EOF'
import json, sys
d = sys.argv[1]
opts = json.load(open(d + "/meson-info/intro-buildoptions.json"))
targets = json.load(open(d + "/meson-info/intro-targets.json"))
print(json.dumps(sorted((o["name"], o["value"]) for o in opts if o["name"] != "vcs_tag")))
print([t for t in targets if t["name"] == "evalset"][0]["target_sources"][0]["compiler"])
EOF
}

# the copies, sources and build folders: the mirrored one (m_) when it
# can be set up as BUILDDIR was, else two fresh ones
one=$tmp/a/evalset one_b=$tmp/a/evalset/build
two=$tmp/a-longer-folder-name/nested/evalset-copy two_b=$two/build
n=0 fail=0 against=
if [ -n "$tested" ] && ! where=$(mirrored); then
  echo "# $tested and $src share no folder but the root: two fresh copies are compared instead"
elif [ -n "$tested" ] && [ -x "$tested/evalset" ] && like=$(like_tested 2>"$tmp/like.err"); then
  m_src=${where%%$'\n'*} m_b=${where#*$'\n'}
  mapfile -t args <<<"${like#*$'\n'}"
  copy_to "$m_src" || { echo "not ok 1 - copy the source tree"; echo "1..1"; exit 1; }
  if ! CC=${like%%$'\n'*} setup_in "$m_src" "$m_b" "${args[@]}"; then
    echo "# the copy could not be set up as $tested was: two fresh copies are compared instead"
    tail -n 5 "$m_b.setup.log" | sed 's/^/#   /'
  elif [ "$(configuration "$m_b")" != "$(configuration "$tested")" ]; then
    echo "# the copy's configuration differs from $tested's: two fresh copies are compared instead"
  else
    against=$tested one=$m_src one_b=$m_b
    echo "# the copy, set up as $tested was, is compared with its evalset"
  fi
elif [ -n "$tested" ]; then
  echo "# $tested was set up with a cross or native file (or has no evalset): two fresh copies are compared instead"
fi
if [ -z "$against" ]; then
  copy_to "$one" && copy_to "$two" || { echo "not ok 1 - copy the source tree"; echo "1..1"; exit 1; }
fi
builds=("$one_b")
[ -n "$against" ] || builds+=("$two_b")
for b in "${builds[@]}"; do
  n=$((n + 1))
  if { [ -f "$b/build.ninja" ] || setup_in "${b%/build}" "$b"; } && build_in "$b"; then
    echo "ok $n - build in $b"
  else
    fail=1
    echo "not ok $n - build in $b"
    tail -n 20 "$b.setup.log" "$b.build.log" 2>/dev/null | sed 's/^/# /'
  fi
done
other=${against:-$two_b}
n=$((n + 1))
if [ "$fail" = 0 ] && cmp "$one_b/evalset" "$other/evalset"; then
  echo "ok $n - the two binaries are byte-identical"
else
  echo "not ok $n - the two binaries are byte-identical"
  [ -n "$against" ] && echo "# (a file of the tree changed since $against was built also makes them differ: rebuild, then run again)"
  [ "$fail" = 0 ] && for b in "$one_b/evalset" "$other/evalset"; do
    strings -a "$b" | grep -n -e "$tmp" -e "$src" -e "$other" | head -5 | sed 's/^/# /'
  done
fi
n=$((n + 1))
if [ "$fail" = 0 ] && ! grep -q -a -e "$tmp" -e "$src" -e "$other" "$one_b/evalset"; then
  echo "ok $n - no source or build path inside the binary"
else
  echo "not ok $n - no source or build path inside the binary"
fi
# the option goes into a C string: text that would end it is refused at setup
n=$((n + 1))
if ! meson setup "$tmp/quote" "$one" '-Dvcs_tag=v1" + 1' >"$tmp/quote.log" 2>&1 &&
   grep -q "vcs_tag option holds a quote" "$tmp/quote.log"; then
  echo "ok $n - a vcs_tag holding a quote is refused at setup"
else
  echo "not ok $n - a vcs_tag holding a quote is refused at setup"
  tail -n 5 "$tmp/quote.log" | sed 's/^/# /'
fi
echo "1..$n"
