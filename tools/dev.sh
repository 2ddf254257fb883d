#!/usr/bin/env bash
# The project's one entry point for set-up, demo and tests on Debian 12.
#
#   tools/dev.sh deps    install the Debian packages evalset needs (as root);
#                        `deps test` adds those the test suites need
#   tools/dev.sh build   build build/ (plain, warnings as errors)
#   tools/dev.sh demo    deps + build + the demo on the shipped set
#   tools/dev.sh test    deps + every build of the list below + its suites,
#                        ending with "N passed, N failed, N skipped"
#   tools/dev.sh man     rewrite the committed man pages (docs/man/man1) from
#                        the commands' -h, after a change of options
#   tools/dev.sh mutate  the mutation harness (tools/mutate/): each small
#                        deliberate bug of tools/mutate/mutants.txt built in a
#                        scratch copy and run against its fast tests; the
#                        score per module and the survivors (--module NAME for
#                        one module, --list, --check, -h for the rest)
#
# With CI=true, a skipped suite is a failure: CI has every package installed,
# so a suite that skips there has lost its ability to fail.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
. tools/apt.sh

packages=(gcc meson ninja-build pkg-config libcurl4-openssl-dev libcjson-dev
  libyaml-dev libssl-dev libutf8proc-dev zlib1g-dev libicu-dev libstemmer-dev
  libpcre2-dev libxml2-dev libmicrohttpd-dev libcmark-dev python3 ca-certificates)
# the tests: clang and its linker lld for its build, zsh for the completion test, git for the
# version and reproducibility tests, sqlite3 and jq for the warehouse-log and
# trace tests (they run the SQL and jq of docs/scale.md), python3-yaml for the
# CI recipe test (tests/llm/t-matrix.sh reads the workflow in docs/scale.md),
# and for the browser suite Debian's Chromium driven by playwright-core under
# Node.js
# the Python suite builds the wheel offline with Debian's meson-python (which
# wants patchelf) and python-build, installs it into a venv and runs pytest
test_packages=(clang lld zsh git chromium fonts-dejavu-core sqlite3 jq python3-yaml
  python3-mesonpy python3-build python3-pytest python3-venv patchelf)
# the 32-bit build (build-i386): Debian's i386 cross compiler and the :i386
# -dev package of every dependency (multiarch: the i386 architecture is added
# first); where the kernel runs i386 programs its tests run as they are, else
# under qemu-user's qemu-i386 (tools/cross/i686-emulated.ini)
i386_packages=(crossbuild-essential-i386 qemu-user libcurl4-openssl-dev:i386 libcjson-dev:i386
  libyaml-dev:i386 libssl-dev:i386 libutf8proc-dev:i386 zlib1g-dev:i386 libicu-dev:i386
  libstemmer-dev:i386 libpcre2-dev:i386 libxml2-dev:i386 libmicrohttpd-dev:i386
  libcmark-dev:i386)

# The builds `tools/dev.sh test` makes and tests, one per line:
#   DIR  CC  SUITES  [MESON OPTIONS...]
# SUITES is "all" or a comma-separated list of meson suites. Warnings are
# errors in every build. To add a build, add a line.
builds=(
  "build        gcc    all    -Dc_link_args=-fuse-ld=gold"
  "build-asan   clang  unit,cli,review,fuzz-replay,conformance,lang,llm  -Db_sanitize=address,undefined -Db_lundef=false --native-file tools/machines/asan.ini"
  "build-i386   gcc    unit,cli,review,conformance  --cross-file tools/cross/i686-linux-gnu.ini"
)
# build: linked with gold (binutils' faster linker; 36 s of the build's
# steps were the GNU linker's); the suites that build the tree afresh
# (install, release, python) use the default linker
# build-asan: clang's AddressSanitizer (with LeakSanitizer: ASAN_OPTIONS below)
# and UndefinedBehaviorSanitizer, with float-cast-overflow (a double from
# input converted to an integer it does not fit), which gcc's UBSan lacks; a
# second compiler's warnings, as errors; tools/machines/asan.ini has its
# flags and why; a finding aborts the process, and its report, a file of
# DIR/sanitizer-reports, fails the build and is printed at the end; the
# suites whose C code the sanitizers check: not browser (the pages' script
# in Chromium; the review server's C is review-http's, suite review), docs
# (the documents' commands, which the cli cases reach) nor crash (whether
# a write killed midway leaves the files whole: the same in every build;
# reading files cut short is the fuzz targets')
# build-i386: 32-bit x86 (size_t, long and pointers of 4 bytes), cross-built
# with tools/cross/i686-linux-gnu.ini; on a kernel without 32-bit support
# (x86-64 kernels built without IA32 emulation, as on some CI machines) its
# tests run under qemu-i386 (emulated_opts)
# suites that only the first build runs: they build the tree afresh
# themselves (install, release, python) or read the sources alone, the same
# in every build (layering), or test the project's own tools (tools)
once_suites=(install release python layering tools)
# suites whose tests spend a good part of their time waiting (the fake LLM server's
# latencies and retry-after, polling for a batch or a journal, the browser,
# the review server's deadlines and locks held for seconds):
# each build runs them in a second `meson test` with more processes than the
# machine's 2 cores, so that one test's waits are another's CPU
waiting_suites=(llm browser review)
waiting_processes=4

deps() { # deps [test]: install what is missing
  local missing=() want=("${packages[@]}")
  if [ "${1:-}" = test ]; then
    want+=("${test_packages[@]}")
    # Node.js: the machine's own when present (it brings npm), else Debian's
    command -v node >/dev/null 2>&1 || want+=(nodejs)
    command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || want+=(npm)
    want+=("${i386_packages[@]}")
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
    case " ${missing[*]}" in
      *:i386*) dpkg --print-foreign-architectures | grep -qx i386 || dpkg --add-architecture i386 ;;
    esac
    apt_install "${missing[@]}"
  fi
}

build() { # build DIR [CC [meson options...]]
  local dir=$1 compiler=${2:-gcc}; shift; shift || true
  if [ ! -f "$dir/build.ninja" ]; then
    CC=$compiler meson setup "$dir" --werror "$@" > "$dir.setup.log" 2>&1 || { cat "$dir.setup.log"; return 1; }
  fi
  local log; log=$(mktemp)
  ninja -C "$dir" > "$log" 2>&1 || { cat "$log"; rm -f "$log"; return 1; }
  rm -f "$log"
}

emulated_opts() { # emulated_opts DIR: the meson options DIR's tests need to run here
  [ "$1" = build-i386 ] || return 0
  local probe; probe=$(mktemp -d)
  printf 'int main(void) { return 0; }\n' > "$probe/p.c"
  if ! i686-linux-gnu-gcc -o "$probe/p" "$probe/p.c" 2>"$probe/err"; then
    cat "$probe/err" >&2; rm -rf "$probe"; return 1
  fi
  if ! "$probe/p" 2>/dev/null; then
    echo "== this kernel does not run i386 programs: $1's tests run under qemu-i386" >&2
    echo "--cross-file tools/cross/i686-emulated.ini"
  fi
  rm -rf "$probe"
}

run_suites() { # run_suites DIR SUITES FIRST LAST: the suites; prints meson's summaries
  # the other suites with 2 processes (logged in DIR/meson-logs/testlog.json),
  # and those of waiting_suites with waiting_processes (testlog-waiting.json)
  # in the background: their output goes to DIR/waiting.out, their exit code
  # to DIR/waiting.rc, and waiting_pid is the process to wait for (empty when
  # DIR has none). They start after the others, so that the next build's
  # suites run beside them (show_waiting), except in the last build (LAST
  # 1), which has no next: there they start first, beside its others,
  # rather than waiting alone at the end.
  local dir=$1 suites=$2 first=$3 last=$4 main=() waiting=() mult=1 s rc=0
  waiting_pid=
  if [ "$suites" != all ]; then
    for s in ${suites//,/ }; do
      if [[ " ${waiting_suites[*]} " == *" $s "* ]]; then waiting+=(--suite "$s"); else main+=(--suite "$s"); fi
    done
  else
    main=()
    for s in "${waiting_suites[@]}"; do main+=(--no-suite "$s"); waiting+=(--suite "$s"); done
    if [ "$first" != 1 ]; then
      for s in "${once_suites[@]}"; do main+=(--no-suite "$s"); done
    fi
  fi
  # the 32-bit build (emulated, about 20 times slower) and the sanitizers
  # (3-5 times) on a shared machine: the timeouts only catch hangs; so do
  # those of the waiting suites, each test slower beside waiting_processes - 1
  # others on 2 cores
  [ "$dir" = build-i386 ] && mult=3
  [ "$dir" = build-asan ] && mult=2
  rm -f "$dir/meson-logs/testlog.json" "$dir/meson-logs/testlog-waiting.json"
  rm -f "$dir/waiting.out" "$dir/waiting.rc"
  start_waiting() {
    [ ${#waiting[@]} -gt 0 ] || return 0
    echo "== tests in $dir that wait in part (${waiting_suites[*]}): $waiting_processes processes, in the background"
    ( wrc=0
      PATH=${test_path:-$PATH} meson test -C "$dir" --no-rebuild --print-errorlogs \
        --num-processes "$waiting_processes" \
        --logbase testlog-waiting --timeout-multiplier $((mult * waiting_processes / 2)) \
        "${waiting[@]}" || wrc=$?
      echo "$wrc" > "$dir/waiting.rc" ) > "$dir/waiting.out" 2>&1 &
    waiting_pid=$!
  }
  [ "$last" = 1 ] && start_waiting
  if [ ${#main[@]} -gt 0 ]; then
    PATH=${test_path:-$PATH} meson test -C "$dir" --no-rebuild --print-errorlogs --num-processes 2 \
      --timeout-multiplier "$mult" "${main[@]}" || rc=$?
  fi
  [ "$last" = 1 ] || start_waiting
  return "$rc"
}

show_waiting() { # show_waiting DIR PID: wait for DIR's waiting suites; their output; their exit code
  local dir=$1 pid=$2 rc
  [ -n "$pid" ] || return 0
  wait "$pid" || true
  echo "== tests in $dir that wait in part (${waiting_suites[*]})"
  cat "$dir/waiting.out"
  rc=$(cat "$dir/waiting.rc" 2>/dev/null || echo 1)
  return "$rc"
}

show_reports() { # show_reports FOLDER: the sanitizer reports in FOLDER, the first 60 lines of
  # the first 10, the summary line of the others (often the same finding)
  local f n=0
  while IFS= read -r f; do
    n=$((n + 1))
    if [ "$n" -le 10 ]; then
      echo "== sanitizer report $f ($(wc -l < "$f") lines; the first 60)"
      head -n 60 "$f"
    else
      echo "== sanitizer report $f: $(grep -m1 '^SUMMARY:' "$f" || echo "no SUMMARY line")"
    fi
  done < <(find "$1" -type f | sort -V)
}

count() { # count DIR RC: "passed failed skipped" from meson's JSON logs and exit code
  python3 - "$1/meson-logs/testlog.json" "$1/meson-logs/testlog-waiting.json" "$2" <<'PY'
import json, os, sys
p = f = s = 0
logs = [l for l in sys.argv[1:3] if os.path.exists(l)]
for log in logs:
    for line in open(log):
        r = json.loads(line)
        res = r.get("result")
        if res in ("OK", "EXPECTEDFAIL"):
            p += 1
        elif res == "SKIP":
            s += 1
            print("skipped:", r.get("name"), file=sys.stderr)
        else:
            f += 1
if not logs:
    f = 1
    print("no test log (meson test did not run)", file=sys.stderr)
if p + f + s == 0:
    # meson itself failed before any test ended (a binary that cannot start)
    f = 1
    print("no test ran", file=sys.stderr)
elif sys.argv[3] != "0" and f == 0:
    f = 1
    print(f"meson test exited {sys.argv[3]} though no test failed", file=sys.stderr)
print(p, f, s)
PY
}

case "${1:-}" in
  deps) deps "${2:-}" ;;
  build) deps; build build ;;
  demo)
    deps
    build build
    exec bash tools/demo.sh
    ;;
  man)
    deps
    build build
    bash docs/man/mkman.sh build/evalset "$here" docs/man/man1
    git status --short docs/man/man1
    ;;
  mutate)
    deps
    shift
    exec python3 tools/mutate/mutate.py "$@"
    ;;
  test)
    deps test
    # python3 as the tests call it (thousands of times: fake servers,
    # checks), resolved once: where PATH's python3 is a version manager's
    # shim (pyenv's is a shell script: about half a second of CPU per call)
    # the tests run the interpreter it resolves to directly, through a
    # folder that holds that one link, ahead of PATH (meson test only: the
    # builds keep PATH as it is, so that no build records the folder)
    pybin=$(mktemp -d)
    trap 'rm -rf "$pybin"' EXIT
    test_path=$PATH
    if py=$(python3 -c 'import sys; print(sys.executable)') && [ -x "$py" ]; then
      ln -s "$py" "$pybin/python3"
      test_path="$pybin:$PATH"
    fi
    total_p=0; total_f=0; total_s=0; started=$SECONDS
    dirs=() compilers=() suites_of=() opts_of=() pids=() built_in=()
    main_rc=() main_secs=() waiting_pids=() tested=() reports_of=()
    for i in "${!builds[@]}"; do
      read -r dirs[i] compilers[i] suites_of[i] opts <<< "${builds[$i]}"
      if extra=$(emulated_opts "${dirs[i]}"); then
        opts_of[i]="$opts${extra:+ $extra}"
      else
        opts_of[i]=unbuildable
      fi
    done
    # start_build I: build I in the background, its output in DIR.build.log;
    # each build after the first is compiled while the one before it is
    # tested, at a lower priority, so that it takes the CPU the tests leave
    # (a core idle at the end of a meson test, the waits of the llm and
    # browser tests) rather than theirs
    start_build() {
      local i=$1
      [ "${opts_of[i]}" != unbuildable ] || return 0
      if [ "$i" -eq 0 ]; then
        echo "== ${dirs[i]}: ${compilers[i]}${opts_of[i]:+ ${opts_of[i]}} (warnings are errors)"
      else
        echo "== ${dirs[i]}: ${compilers[i]}${opts_of[i]:+ ${opts_of[i]}} (warnings are errors), built while ${dirs[i-1]} is tested"
      fi
      # shellcheck disable=SC2086  # the options are words
      ( [ "$i" -eq 0 ] || renice -n 10 -p "$BASHPID" >/dev/null || true
        t=$SECONDS
        if build "${dirs[i]}" "${compilers[i]}" ${opts_of[i]}; then rc=0; else rc=$?; fi
        echo "$((SECONDS - t))" > "${dirs[i]}.build.time"
        exit "$rc" ) > "${dirs[i]}.build.log" 2>&1 &
      pids[i]=$!
    }
    start_build 0
    for i in "${!builds[@]}"; do
      dir=${dirs[i]} suites=${suites_of[i]} first=$((i == 0 ? 1 : 0))
      if [ "${opts_of[i]}" = unbuildable ]; then
        echo "$dir: cannot build a program for it"
        total_f=$((total_f + 1))
        [ $((i + 1)) -lt ${#builds[@]} ] && start_build $((i + 1))
        continue
      fi
      if ! wait "${pids[i]}"; then
        cat "$dir.build.log"
        echo "$dir: the build failed"
        total_f=$((total_f + 1))
        [ $((i + 1)) -lt ${#builds[@]} ] && start_build $((i + 1))
        continue
      fi
      built_in[i]=$(cat "$dir.build.time" 2>/dev/null || echo "?")
      [ $((i + 1)) -lt ${#builds[@]} ] && start_build $((i + 1))
      echo "== tests in $dir ($suites)"
      t0=$SECONDS rc=0
      # a sanitizer's finding aborts the process (abort_on_error: status
      # 134, which no test expects; without it the sanitizers exit 1, the
      # status of a failed gate or check, which many CLI cases and scripts
      # expect) and its report goes to a file of its own,
      # DIR/sanitizer-reports/report.PID (log_path), which a test cannot
      # swallow as it can stderr: any such file fails the build below. The
      # combined runtime has one report file and one set of common flags,
      # UBSAN_OPTIONS read last: both name the same prefix.
      asan=detect_leaks=1 ubsan=print_stacktrace=1:halt_on_error=1 reports=
      if [[ " ${opts_of[i]} " == *" -Db_sanitize="* ]]; then
        reports=$here/$dir/sanitizer-reports
        rm -rf "$reports" && mkdir -p "$reports"
        asan+=":abort_on_error=1:log_path=$reports/report"
        ubsan+=":abort_on_error=1:log_path=$reports/report"
      fi
      # meson test has glibc's malloc fill new and freed memory with a
      # random byte (MALLOC_PERTURB_), so that a read of memory never
      # written shows: in the first build (a value the caller set stays).
      # The others set 0 (off): the sanitizers' allocator ignores it (only
      # the harness's tools paid for it), and the emulated build is there
      # for 32-bit arithmetic
      perturb=${MALLOC_PERTURB_:-}
      [ "$i" -eq 0 ] || perturb=0
      MALLOC_PERTURB_=$perturb ASAN_OPTIONS=$asan UBSAN_OPTIONS=$ubsan EVALSET_SANITIZER_REPORTS=$reports \
        run_suites "$dir" "$suites" "$first" "$((i + 1 == ${#builds[@]} ? 1 : 0))" || rc=$?
      reports_of[i]=$reports
      main_rc[i]=$rc main_secs[i]=$((SECONDS - t0)) waiting_pids[i]=$waiting_pid tested[i]=1
    done
    # each build's waiting suites ran beside the next build's tests: wait for
    # them in build order, show them, and count each build whole
    for i in "${!builds[@]}"; do
      [ -n "${tested[i]:-}" ] || continue
      dir=${dirs[i]} rc=${main_rc[i]} wrc=0
      show_waiting "$dir" "${waiting_pids[i]}" || wrc=$?
      [ "$rc" != 0 ] || rc=$wrc
      read -r p f s < <(count "$dir" "$rc")
      nr=0
      [ ! -d "${reports_of[i]:-}" ] || nr=$(find "${reports_of[i]}" -type f | wc -l)
      if [ "$nr" -gt 0 ]; then
        show_reports "${reports_of[i]}"
        echo "$dir: $nr sanitizer reports (above): a failure"
        f=$((f + 1))
      fi
      echo "$dir: $p passed, $f failed, $s skipped (tests ${main_secs[i]} s and those that wait" \
        "beside the next; built in ${built_in[i]} s)"
      total_p=$((total_p + p)); total_f=$((total_f + f)); total_s=$((total_s + s))
    done
    if [ "${CI:-}" = true ] && [ "$total_s" -gt 0 ]; then
      echo "a suite was skipped in CI, where everything it needs is installed: that is a failure"
    fi
    echo "all builds and tests took $((SECONDS - started)) s"
    echo "$total_p passed, $total_f failed, $total_s skipped"
    [ "$total_f" -eq 0 ] && { [ "${CI:-}" != true ] || [ "$total_s" -eq 0 ]; }
    ;;
  *)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
