# Shared by the browser tests (run.sh, review.sh): find Chromium and Node,
# install playwright-core and axe-core from the lockfile, fail the set-up in TAP.
# Expects $here (tests/browser). Sets $chromium.

# Exit with TAP "1..0 # SKIP" when chromium or node is missing.
browser_prereqs() {
  chromium=${CHROMIUM:-}
  for c in /usr/bin/chromium /usr/bin/chromium-browser; do
    [ -z "$chromium" ] && [ -x "$c" ] && chromium=$c
  done
  if [ -z "$chromium" ]; then
    echo "1..0 # SKIP chromium is not installed (Debian: apt-get install chromium)"
    exit 0
  fi
  if ! command -v node >/dev/null 2>&1; then
    echo "1..0 # SKIP node is not installed (Debian: apt-get install nodejs npm)"
    exit 0
  fi
}

fail_setup() { # fail_setup WHAT LOGFILE
  echo "not ok 1 - $1"
  sed 's/^/# /' "$2" | tail -40
  echo "1..1"
  exit 1
}

# playwright-core from the lockfile, once per source tree (both builds share it)
browser_npm() { # browser_npm LOGFILE
  local log=$1
  if [ ! -f "$here/node_modules/playwright-core/package.json" ] || [ ! -f "$here/node_modules/axe-core/package.json" ]; then
    command -v npm >/dev/null 2>&1 || { echo "npm is not installed (Debian: apt-get install npm)" > "$log"; fail_setup "npm is available to install playwright-core" "$log"; }
    ( flock 9
      [ -f "$here/node_modules/playwright-core/package.json" ] && [ -f "$here/node_modules/axe-core/package.json" ] ||
        (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
    ) 9>"${TMPDIR:-/tmp}/evalset-browser-npm.lock" >> "$log" 2>&1 ||
      fail_setup "npm ci installs playwright-core in tests/browser" "$log"
  fi
}
