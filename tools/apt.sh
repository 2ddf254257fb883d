# Sourced by tools/dev.sh and .ci/run: Debian package installation that
# survives a mirror caught mid-sync.
#
# A mirror that is being updated serves an index of another size than its
# Release file promises; `apt-get update` then fails (exit 100, "Mirror sync
# in progress?") although the packages are there a minute later. So
# apt_install updates and installs up to seven times, waiting 15, 30, 60,
# 120, 240 and 300 s between tries (a sync of the Debian mirrors can take
# ten minutes), and fails only when the last install fails, with apt's own
# messages of that try.

apt_install() { # apt_install PACKAGE...: as root
  local try tries=7 wait=15 log
  log=$(mktemp)
  for try in $(seq "$tries"); do
    # an index that fails here leaves apt the others (and any older copy):
    # the install below tells whether what it needs is there
    apt-get update -qq >"$log" 2>&1 || { echo "apt-get update failed (try $try of $tries):"; tail -n 5 "$log"; } >&2
    if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >>"$log" 2>&1; then
      rm -f "$log"
      return 0
    fi
    if [ "$try" = "$tries" ]; then
      tail -n 30 "$log" >&2
      rm -f "$log"
      echo "apt-get install failed $tries times: $*" >&2
      return 1
    fi
    echo "apt-get install failed (try $try of $tries); again in $wait s" >&2
    sleep "$wait"
    wait=$((wait * 2 > 300 ? 300 : wait * 2))
  done
}
