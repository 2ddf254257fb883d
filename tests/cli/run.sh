#!/usr/bin/env bash
# Data-driven CLI tests, printing TAP.
#
# usage: run.sh EVALSET CASES_DIR [CASE...]
#
# Each case is a directory under CASES_DIR holding:
#   cmd           shell lines run by bash in a scratch directory; the exit code
#                 of the whole script is the one checked. $EVALSET is the binary,
#                 $SRC the source tree (cases read nothing outside it).
#   setup         (optional) shell lines run first; their writes are not checked
#   files/        (optional) copied into the scratch directory before setup
#   rc            expected exit code (default 0)
#   out           (optional) expected stdout, byte for byte
#   out-contains  (optional) lines that must each occur in stdout
#   err           (optional) lines that must each occur in stderr
#   out-lacks     (optional) lines that must not occur in stdout or stderr
# When rc is 2 (bad input), the scratch directory must be unchanged afterwards:
# bad input writes nothing.
set -u
evalset=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cases=$(cd "$2" && pwd)
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -gt 0 ]; then names=("$@"); else names=($(ls "$cases")); fi
# EVALSET_CLI_COVER=P (the sanitizer and emulated builds), when every case
# runs: the cases of tests/cli/cover-order.txt up to the first that brings
# the edges of evalset reached to P% (tools/cover/cases.sh), and every case
# the file does not name; the plain build runs all. A name the file gives
# that is no case is a stale file.
cover=${EVALSET_CLI_COVER:-}
if [ -n "$cover" ] && [ $# -eq 0 ]; then
  if [[ "$cover" =~ ^([0-9]{1,3})(\.([0-9]))?$ ]]; then
    want=$(( 10#${BASH_REMATCH[1]} * 10 + 10#${BASH_REMATCH[3]:-0} ))
  else
    want=1001
  fi
  if [ "$want" -gt 1000 ]; then
    echo "Bail out! EVALSET_CLI_COVER must be a percentage from 0 to 100, not '$cover'"; exit 1
  fi
  order=${EVALSET_CLI_COVER_ORDER:-$src/tests/cli/cover-order.txt}
  declare -A skip=()
  reached=0
  while read -r name pct; do
    case "$name" in '#'*|'') continue ;; esac
    [ -f "$cases/$name/cmd" ] || { echo "Bail out! $order names '$name', which is no case of $cases: run tools/cover/cases.sh again"; exit 1; }
    [[ "$pct" =~ ^([0-9]+)\.([0-9])$ ]] || { echo "Bail out! $order: '$pct' after '$name' is not a percentage such as 97.5"; exit 1; }
    if [ "$reached" = 1 ]; then skip[$name]=1; continue; fi
    [ $(( 10#${BASH_REMATCH[1]} * 10 + 10#${BASH_REMATCH[2]} )) -ge "$want" ] && reached=1
  done < "$order"
  kept=()
  for name in "${names[@]}"; do
    [ -n "${skip[$name]:-}" ] || kept+=("$name")
  done
  echo "# ${#kept[@]} of ${#names[@]} cases: those that reach $cover% of the edges the cases reach, and those not in tests/cli/cover-order.txt (EVALSET_CLI_COVER)"
  names=("${kept[@]}")
fi
# EVALSET_CLI_PART=I/N: part I (from 1) of N, the cases left after the
# above dealt out in turn, so that N tests run the whole list side by side
part=${EVALSET_CLI_PART:-1/1}
if ! [[ "$part" =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
  echo "Bail out! EVALSET_CLI_PART must be I/N with 1 <= I <= N, not '$part'"; exit 1
fi
part_i=${BASH_REMATCH[1]} part_n=${BASH_REMATCH[2]}
if [ "$part_n" -gt 1 ]; then
  kept=()
  for i in "${!names[@]}"; do
    [ $((i % part_n)) -eq $((part_i - 1)) ] && kept+=("${names[$i]}")
  done
  echo "# part $part (EVALSET_CLI_PART): ${#kept[@]} of ${#names[@]}"
  names=("${kept[@]}")
fi
n=0; failed=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# What a case's folder holds: every name with its type and mode, and every
# file's size, inode, and modification and change times to the nanosecond.
# Any write to a file, or a file put in its place, moves its change time,
# which no program can set back: so a rewrite with the same bytes counts
# too. A folder's own times are left out: a command that refuses bad input
# may have made and removed a temporary file in it, which changes nothing
# the user has but moves those times on. Two processes (find, sort). sort
# reading a pipe takes a buffer sized for a large input unless told, and
# under meson test (which sets MALLOC_PERTURB_) malloc fills it: 30 ms of
# CPU a snapshot, two snapshots a case of exit 2; 64 KiB holds a listing.
snapshot() {
  find "$1" -path "$1/.snap" -prune -o \( -type d -printf '%P %y %m\n' \) \
    -o -printf '%P %y %m %s %i %T@ %C@ %l\n' | LC_ALL=C sort -S 64K
}
# has FILE LINE: whether LINE occurs in FILE (as grep -F would find it in one
# of its lines), without a process per line: the file is read into bash
# once per check, unless it holds a NUL byte, which bash cannot hold
has() {
  local text
  if IFS= read -r -d '' text < "$1"; then
    grep -qF -- "$2" "$1"
  else
    [[ "$text" == *"$2"* ]]
  fi
}
for name in "${names[@]}"; do
  c="$cases/$name"
  [ -f "$c/cmd" ] || continue
  n=$((n+1))
  tmp=$scratch/$n
  mkdir -p "$tmp/work"
  # each case its own cache of frozen versions, outside the files it checks
  export EVALSET_CACHE_DIR="$tmp/cache"
  [ -d "$c/files" ] && cp -a "$c/files/." "$tmp/work/"
  want_rc=0; [ -f "$c/rc" ] && read -r want_rc < "$c/rc"
  problems=""
  if [ -f "$c/setup" ]; then
    (cd "$tmp/work" && EVALSET="$evalset" SRC="$src" bash -e "$c/setup") >"$tmp/setup.log" 2>&1 \
      || problems+="setup failed: $(tail -3 "$tmp/setup.log")\n"
  fi
  [ "$want_rc" = 2 ] && snapshot "$tmp/work" > "$tmp/before"
  : > "$tmp/started"
  (cd "$tmp/work" && EVALSET="$evalset" SRC="$src" NO_COLOR=1 EVALSET_NOW=2026-11-29T12:00:00Z bash "$c/cmd") >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
  [ "$rc" = "$want_rc" ] || problems+="exit $rc, want $want_rc\n"
  if [ -f "$c/out" ] && ! cmp -s "$c/out" "$tmp/out"; then
    problems+="stdout differs:\n$(diff "$c/out" "$tmp/out" | head -20)\n"
  fi
  if [ -f "$c/out-contains" ]; then
    while IFS= read -r line; do
      [ -z "$line" ] && continue
      has "$tmp/out" "$line" || problems+="stdout lacks: $line\n"
    done < "$c/out-contains"
  fi
  if [ -f "$c/err" ]; then
    while IFS= read -r line; do
      [ -z "$line" ] && continue
      has "$tmp/err" "$line" || problems+="stderr lacks: $line\n"
    done < "$c/err"
  fi
  if [ -f "$c/out-lacks" ]; then
    while IFS= read -r line; do
      [ -z "$line" ] && continue
      { has "$tmp/out" "$line" || has "$tmp/err" "$line"; } && problems+="output holds: $line\n"
    done < "$c/out-lacks"
  fi
  if [ "$want_rc" = 2 ]; then
    snapshot "$tmp/work" > "$tmp/after"
    cmp -s "$tmp/before" "$tmp/after" || problems+="bad input changed files:\n$(diff "$tmp/before" "$tmp/after" | head -10)\n"
  fi
  if [ -z "$problems" ]; then
    echo "ok $n - $name"
  else
    failed=$((failed+1))
    # to stdout for TAP, and to stderr too: a CI log shows a failing test's
    # stderr, so the case and its problems are there without the test log
    { echo "not ok $n - $name"
      printf '%b' "$problems" | sed 's/^/#   /'
      echo "#   stderr: $(head -c 400 "$tmp/err" | tr '\n' '|')"
      # the sanitizer build writes its reports to files (tools/dev.sh)
      [ -d "${EVALSET_SANITIZER_REPORTS:-}" ] &&
        find "$EVALSET_SANITIZER_REPORTS" -type f -newer "$tmp/started" -exec head -v -n 30 {} + | sed 's/^/#   /'
    } | tee /dev/stderr
  fi
  rm -rf "$tmp"
done
echo "1..$n"
[ "$failed" -eq 0 ]
