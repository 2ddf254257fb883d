#!/usr/bin/env bash
# tools/apt.sh, the package installation of tools/dev.sh and .ci/run, against
# a stand-in apt-get that fails as a mirror caught mid-sync does (exit 100,
# "File has unexpected size"): it must try again, wait longer each time, and
# fail only after the last try, showing apt's messages. sleep is a stand-in
# too: the waits are recorded, not spent. Prints TAP.
#
# usage: t-apt.sh [EVALSET] (unused: the script tests the repository's tools)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/tap.sh"

. "$src/tools/apt.sh"

# the stand-ins: apt-get update fails while $tmp/update-fails counts down
# (the same for install with $tmp/install-fails); every call is logged
apt-get() {
  echo "$*" >> "$tmp/calls"
  local which=install
  [ "$1" = update ] && which=update
  local left; left=$(cat "$tmp/$which-fails")
  if [ "$left" -gt 0 ]; then
    echo $((left - 1)) > "$tmp/$which-fails"
    echo "E: Failed to fetch http://deb.debian.org/debian/dists/bookworm/main/binary-i386/Packages.xz  File has unexpected size (1 != 2). Mirror sync in progress?"
    echo "E: Unable to locate package $which-left-$left"
    return 100
  fi
  return 0
}
sleep() { echo "$1" >> "$tmp/sleeps"; }

case_() { # case_ UPDATE_FAILS INSTALL_FAILS: runs apt_install, sets rc and err
  : > "$tmp/calls"; : > "$tmp/sleeps"
  echo "$1" > "$tmp/update-fails"; echo "$2" > "$tmp/install-fails"
  apt_install git zsh 2> "$tmp/err"
  rc=$?
  err=$(cat "$tmp/err")
}

# a healthy mirror: one update, one install, no wait
case_ 0 0
ok "$([ "$rc" = 0 ] && [ "$(wc -l < "$tmp/calls")" = 2 ] && [ ! -s "$tmp/sleeps" ] && echo 0)" \
  "a healthy mirror: one update and one install, no wait"
grep -qx -- "install -y -qq --no-install-recommends git zsh" "$tmp/calls"
ok $? "the packages asked for are the ones installed"

# an index that fails while the install still finds its packages: done at once
case_ 1 0
ok "$([ "$rc" = 0 ] && [ ! -s "$tmp/sleeps" ] && echo 0)" "a failed index whose install succeeds: no retry"
case "$err" in *"apt-get update failed (try 1 of 7)"*"Mirror sync in progress?"*) r=0 ;; *) r=1 ;; esac
ok $r "the failed update is reported with apt's message"

# mid-sync for two tries: the third succeeds, after waits of 15 and 30 s
case_ 2 2
ok "$([ "$rc" = 0 ] && [ "$(tr '\n' ' ' < "$tmp/sleeps")" = "15 30 " ] && echo 0)" \
  "a mirror mid-sync for two tries: installed on the third, after 15 and 30 s"
ok "$([ "$(grep -c '^update' "$tmp/calls")" = 3 ] && echo 0)" "each try updates the indexes again"

# never recovers: seven tries, six waits, exit 1 with apt's last messages
case_ 99 99
ok "$([ "$rc" = 1 ] && [ "$(tr '\n' ' ' < "$tmp/sleeps")" = "15 30 60 120 240 300 " ] && echo 0)" \
  "a mirror that never recovers: fails after seven tries and waits of 15, 30, 60, 120, 240, 300 s"
case "$err" in *"Unable to locate package install-left-93"*"apt-get install failed 7 times: git zsh"*) r=0 ;; *) r=1 ;; esac
ok $r "the failure shows apt's messages of the last try and names the packages"

# under set -e, as tools/dev.sh and .ci/run run it: a failed try must not end
# the script, a final failure must
( set -e; echo 1 > "$tmp/update-fails"; echo 1 > "$tmp/install-fails"; apt_install git 2>/dev/null; echo reached ) > "$tmp/out"
ok "$([ "$(cat "$tmp/out")" = reached ] && echo 0)" "under set -e a failed try goes on to the next"
( set -e; echo 99 > "$tmp/update-fails"; echo 99 > "$tmp/install-fails"; apt_install git 2>/dev/null; echo reached ) > "$tmp/out"
ok "$([ ! -s "$tmp/out" ] && echo 0)" "under set -e the final failure stops the script"

# both callers use it, and neither calls apt-get update on its own
grep -q '^\. tools/apt.sh' "$src/tools/dev.sh" && grep -q 'tools/apt.sh"' "$src/.ci/run"
ok $? "tools/dev.sh and .ci/run source tools/apt.sh"
! grep -n "apt-get \(update\|install\)" "$src/tools/dev.sh" "$src/.ci/run" | grep -v "sudo apt-get install"
ok $? "neither runs apt-get update or install outside apt_install"

tap_end
