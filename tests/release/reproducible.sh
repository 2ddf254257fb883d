#!/usr/bin/env bash
# Reproducible builds (suite 'release'): a copy of the source tree (its
# tracked and new files), in a folder of another name and depth, must build
# the same binary, byte for byte, with no source or build path inside.
# Prints TAP.
#
# usage: reproducible.sh SRCDIR [BUILDDIR]
#
# With BUILDDIR (the build under test, a setup of SRCDIR), one copy is set
# up as BUILDDIR was: its command-line options (meson-private/cmd_line.txt),
# its compiler and its `git describe` (tools/version.sh of SRCDIR, given to
# the copy, which has no .git, as the vcs_tag option). Its binary is compared
# with BUILDDIR's evalset. When BUILDDIR is not a folder of SRCDIR itself
# (the binary names its sources relative to the build folder), or the
# copy's configuration still differs from BUILDDIR's (a cross or native
# file, an option set outside the command line), the script says so and
# builds a second copy instead, as it does without BUILDDIR: two fresh
# builds, compared with each other. Last, a vcs_tag that would end the C
# string it goes into must be refused at setup.
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
setup_in() { # setup_in SRC [meson options...]
  local d=$1; shift
  meson setup "$d/build" "$d" "$@" >"$d.setup.log" 2>&1
}
build_in() { # build_in SRC: the binary alone
  ninja -C "$1/build" -j2 evalset >"$1.build.log" 2>&1
}
# like_tested: BUILDDIR's compiler on the first line, then one meson
# argument a line: its command-line options and the vcs_tag it was built
# with; fails when BUILDDIR was set up with a cross or native file
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
for k, v in (cmd["options"].items() if cmd.has_section("options") else []):
    if k != "vcs_tag":
        print(f"-D{k}={v.lower() if v in ('True', 'False') else v}")
print(f"-Dvcs_tag={describe}")
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

one=$tmp/a/evalset
two=$tmp/a-longer-folder-name/nested/evalset-copy
n=0 fail=0 against=
copy_to "$one" || { echo "not ok 1 - copy the source tree"; echo "1..1"; exit 1; }
if [ -n "$tested" ] && [ "${tested%/*}" != "$src" ]; then
  # sources are named relative to the build folder: ../cmd/main.c only from a folder of SRCDIR's own
  echo "# $tested is not a folder of $src itself: two fresh copies are compared instead"
elif [ -n "$tested" ] && [ -x "$tested/evalset" ] && like=$(like_tested 2>"$tmp/like.err"); then
  mapfile -t args <<<"${like#*$'\n'}"
  if ! CC=${like%%$'\n'*} setup_in "$one" "${args[@]}"; then
    echo "# the copy could not be set up as $tested was: two fresh copies are compared instead"
    tail -n 5 "$one.setup.log" | sed 's/^/#   /'
    rm -rf "$one/build"
  elif [ "$(configuration "$one/build")" != "$(configuration "$tested")" ]; then
    echo "# the copy's configuration differs from $tested's: two fresh copies are compared instead"
    rm -rf "$one/build"
  else
    against=$tested
    echo "# the copy, set up as $tested was, is compared with its evalset"
  fi
elif [ -n "$tested" ]; then
  echo "# $tested was set up with a cross or native file (or has no evalset): two fresh copies are compared instead"
fi
if [ -z "$against" ]; then
  copy_to "$two" || { echo "not ok 1 - copy the source tree"; echo "1..1"; exit 1; }
fi
dirs=("$one")
[ -n "$against" ] || dirs+=("$two")
for d in "${dirs[@]}"; do
  n=$((n + 1))
  if { [ -f "$d/build/build.ninja" ] || setup_in "$d"; } && build_in "$d"; then
    echo "ok $n - build in $d"
  else
    fail=1
    echo "not ok $n - build in $d"
    tail -n 20 "$d.setup.log" "$d.build.log" 2>/dev/null | sed 's/^/# /'
  fi
done
other=${against:-$two/build}
n=$((n + 1))
if [ "$fail" = 0 ] && cmp "$one/build/evalset" "$other/evalset"; then
  echo "ok $n - the two binaries are byte-identical"
else
  echo "not ok $n - the two binaries are byte-identical"
  [ -n "$against" ] && echo "# (a file of the tree changed since $against was built also makes them differ: rebuild, then run again)"
  [ "$fail" = 0 ] && for b in "$one/build/evalset" "$other/evalset"; do
    strings -a "$b" | grep -n -e "$tmp" -e "$src" -e "$other" | head -5 | sed 's/^/# /'
  done
fi
n=$((n + 1))
if [ "$fail" = 0 ] && ! grep -q -a -e "$tmp" -e "$src" -e "$other" "$one/build/evalset"; then
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
