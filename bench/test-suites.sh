#!/usr/bin/env bash
# Where the time of `tools/dev.sh test` goes: the CPU time of each meson
# suite of each build, each suite run alone, as tools/dev.sh runs it (2
# processes, or its waiting_processes for its waiting_suites, both read
# from tools/dev.sh; the sanitizer options; python3 resolved once, ahead
# of PATH). The test command's wall
# time is about its total CPU time over the machine's cores, so this is the
# budget to cut from.
#
# usage: bench/test-suites.sh [DIR[:SUITE,SUITE...]]...
#   DIR: a build folder that tools/dev.sh test has built; without suites,
#   every suite it defines. tools/dev.sh's own list:
#     bench/test-suites.sh build \
#       build-asan:unit,cli,review,fuzz-replay,conformance,lang,llm \
#       build-i386:unit,cli,review,conformance
#   (default: build)
#
# Prints, per build and suite, the CPU seconds (user + system of the suite
# and every process it waited for, from getrusage), the wall seconds, and
# the CPU as a multiple of the floor: the CPU of 1,000 starts of /bin/true
# from bash, measured before and after (the least), which is what a process
# costs on this machine. Then each build's total and the total. A suite
# that fails is marked FAILED (its time still counts). Processes a suite
# leaves running escape getrusage and are not counted.
set -u
[ $# -gt 0 ] || set -- build
# the suites that wait, and their processes, as tools/dev.sh has them
here=$(cd "$(dirname "$0")/.." && pwd)
eval "$(grep -E -m2 '^waiting_(suites|processes)=' "$here/tools/dev.sh")"
[ -n "${waiting_suites[*]:-}" ] && [ -n "${waiting_processes:-}" ] ||
  { echo "bench/test-suites.sh: no waiting_suites or waiting_processes in tools/dev.sh" >&2; exit 2; }
pybin=$(mktemp -d)
trap 'rm -rf "$pybin"' EXIT
py=$(python3 -c 'import sys; print(sys.executable)') || exit 2
ln -s "$py" "$pybin/python3"
export PATH="$pybin:$PATH"

# cpu_of CMD...: "CPU-SECONDS WALL-SECONDS EXIT-CODE" of CMD, output dropped
cpu_of() {
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print(f"{u.ru_utime + u.ru_stime:.2f} {time.monotonic() - t:.1f} {r.returncode}")
PY
}
floor_of() { cpu_of bash -c 'for i in $(seq 1000); do /bin/true; done' | cut -d' ' -f1; }
f1=$(floor_of)

results=()
for arg in "$@"; do
  dir=${arg%%:*}
  [ -f "$dir/build.ninja" ] || { echo "bench/test-suites.sh: $dir is no build folder (run tools/dev.sh test first)" >&2; exit 2; }
  if [ "$arg" = "$dir" ]; then
    suites=$(meson test -C "$dir" --list 2>/dev/null | sed -n 's/^[^:]*:\([^ ]*\) \/ .*/\1/p' | sort -u)
  else
    suites=${arg#*:}; suites=${suites//,/ }
  fi
  # the build's sanitizer options, as tools/dev.sh gives them
  asan=detect_leaks=1 ubsan=print_stacktrace=1:halt_on_error=1
  san=$(meson introspect "$dir" --buildoptions |
    python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "b_sanitize"))')
  if [ "$san" != none ]; then
    asan+=:abort_on_error=1 ubsan+=:abort_on_error=1
  fi
  # malloc's fill (MALLOC_PERTURB_): meson's random byte in the first
  # build, `build`, and off in the others, as tools/dev.sh sets it
  perturb=
  [ "$(basename "$dir")" = build ] || perturb=0
  for s in $suites; do
    n=2
    [[ " ${waiting_suites[*]} " == *" $s "* ]] && n=$waiting_processes
    read -r cpu wall rc < <(MALLOC_PERTURB_=$perturb ASAN_OPTIONS=$asan UBSAN_OPTIONS=$ubsan \
      cpu_of meson test -C "$dir" --no-rebuild --num-processes "$n" --suite "$s")
    results+=("$dir $s $cpu $wall $rc")
  done
done

f2=$(floor_of)
floor=$(python3 -c "print(min($f1, $f2))")
python3 - "$floor" "${results[@]}" <<'PY'
import sys
floor = float(sys.argv[1])
print(f"floor: {floor:.2f} CPU-s for 1,000 starts of /bin/true")
print(f"{'build':12} {'suite':14} {'CPU-s':>8} {'wall-s':>7} {'x floor':>8}")
tot = {}
for line in sys.argv[2:]:
    d, s, cpu, wall, rc = line.split()
    cpu = float(cpu)
    tot[d] = tot.get(d, 0) + cpu
    print(f"{d:12} {s:14} {cpu:8.1f} {float(wall):7.1f} {cpu / floor:8.1f}" + ("" if rc == "0" else "  FAILED"))
for d, c in tot.items():
    print(f"{d:12} {'total':14} {c:8.1f} {'':7} {c / floor:8.1f}")
print(f"{'all':12} {'total':14} {sum(tot.values()):8.1f} {'':7} {sum(tot.values()) / floor:8.1f}")
PY
