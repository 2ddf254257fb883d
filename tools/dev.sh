#!/usr/bin/env bash
# The project's one entry point for set-up, demo and tests on Debian 12.
#
#   tools/dev.sh deps    install the Debian packages evalset needs (as root)
#   tools/dev.sh build   build build/ (plain, warnings as errors)
#   tools/dev.sh demo    deps + build + the demo on the shipped set
#   tools/dev.sh test    deps + plain and sanitizer builds + every test suite,
#                        ending with "N passed, N failed"
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

packages=(gcc meson ninja-build pkg-config libcurl4-openssl-dev libcjson-dev
  libyaml-dev libssl-dev libutf8proc-dev zlib1g-dev python3 ca-certificates)
# the browser suite: Debian's Chromium, driven by playwright-core under Node.js
test_packages=(chromium fonts-dejavu-core)

deps() { # deps [test]: install what is missing
  local missing=() want=("${packages[@]}")
  if [ "${1:-}" = test ]; then
    want+=("${test_packages[@]}")
    # Node.js: the machine's own when present (it brings npm), else Debian's
    command -v node >/dev/null 2>&1 || want+=(nodejs)
    command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || want+=(npm)
  fi
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" != 0 ]; then
      echo "missing packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
      exit 2
    fi
    echo "== installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

build() { # build DIR [meson options...]
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" --werror "$@" > "$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
  fi
  local log; log=$(mktemp)
  ninja -C "$dir" > "$log" 2>&1 || { cat "$log"; rm -f "$log"; return 1; }
  rm -f "$log"
}

run_suites() { # run_suites DIR: every suite; prints meson's summary
  local dir=$1
  meson test -C "$dir" --print-errorlogs --num-processes 2 || true
}

count() { # count DIR: "passed failed" from meson's JSON log
  python3 - "$1/meson-logs/testlog.json" <<'PY'
import json, sys
p = f = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("result") in ("OK", "EXPECTEDFAIL", "SKIP"):
        p += 1
    else:
        f += 1
print(p, f)
PY
}

case "${1:-}" in
  deps) deps ;;
  build) deps; build build ;;
  demo)
    deps
    build build
    exec bash tools/demo.sh
    ;;
  test)
    deps test
    echo "== plain build (warnings are errors)"
    build build
    echo "== sanitizer build (address, undefined)"
    build build-asan -Db_sanitize=address,undefined -Db_lundef=false
    total_p=0; total_f=0
    for d in build build-asan; do
      echo "== tests in $d"
      ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_suites "$d"
      read -r p f < <(count "$d")
      echo "$d: $p passed, $f failed"
      total_p=$((total_p + p)); total_f=$((total_f + f))
    done
    echo "$total_p passed, $total_f failed"
    [ "$total_f" -eq 0 ]
    ;;
  *)
    sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
