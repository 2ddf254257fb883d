#!/usr/bin/env bash
# The runner of the CLI cases, tests/cli/run.sh, on made-up cases: that a
# case expecting exit 2 (bad input) fails when its command wrote anything,
# even the same bytes again; that a failing case shows the sanitizer
# reports written while it ran; and the choice of cases for the partial
# builds: tools/cover/guards.c (the edges a program took),
# tools/cover/select.py (the greedy order), run.sh's EVALSET_CLI_COVER (the
# cases up to P%), and that the committed tests/cli/cover-order.txt names
# only cases that exist, in a well-formed order. Prints TAP.
#
# usage: t-cover.sh EVALSET
set -u
evalset=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/tap.sh"
bits() { # bits FILE...: the edges set in the union of the bitmaps, as a count
  python3 -c '
import sys
e = 0
for p in sys.argv[1:]:
    e |= int.from_bytes(open(p, "rb").read(), "little")
print(bin(e).count("1"))' "$@"
}

# bad input writes nothing: run.sh compares the case's folder before and after
bad() { # bad NAME COMMAND: a case expecting exit 2, with a file f holding "hi"
  mkdir -p "$tmp/bad/$1/files"; echo 2 > "$tmp/bad/$1/rc"; echo hi > "$tmp/bad/$1/files/f"
  printf '%s\nexit 2\n' "$2" > "$tmp/bad/$1/cmd"
}
bad read-only 'cat f; mkdir t; rmdir t; : > tmp.part; rm tmp.part'
bad same-bytes-renamed-in 'cp f g; mv g f'
bad same-bytes-times-restored 'touch -r f x; echo hi > f; touch -r x f; rm x'
bad mode 'chmod 600 f'
bad new-file 'echo x > g'
bad gone 'rm f'
bad new-folder 'mkdir d'
bash "$src/tests/cli/run.sh" "$evalset" "$tmp/bad" > "$tmp/bad.tap" 2>/dev/null
ok "$(grep -qx 'ok [0-9]* - read-only' "$tmp/bad.tap" && echo 0)" \
  "bad input that reads, and makes and removes a temporary file or folder, passes"
for c in same-bytes-renamed-in same-bytes-times-restored mode new-file gone new-folder; do
  grep -q "^not ok [0-9]* - $c\$" "$tmp/bad.tap"
  ok $? "bad input that writes fails the case: $c"
done

# the sanitizer build's reports are files (tools/dev.sh): a failing case
# shows those written while it ran
mkdir -p "$tmp/san/aborts" "$tmp/reports"; echo 1 > "$tmp/san/aborts/rc"
# shellcheck disable=SC2016  # the case's own shell expands them
echo 'echo "ERROR: AddressSanitizer: made up" > "$REPORTS/report.$$"; exit 134' > "$tmp/san/aborts/cmd"
echo "ERROR: an older report" > "$tmp/reports/report.1"; touch -d '1 hour ago' "$tmp/reports/report.1"
out=$(REPORTS=$tmp/reports EVALSET_SANITIZER_REPORTS=$tmp/reports bash "$src/tests/cli/run.sh" "$evalset" "$tmp/san" 2>/dev/null)
ok "$([[ "$out" == *"#   ERROR: AddressSanitizer: made up"* ]] && [[ "$out" != *"older report"* ]] && echo 0)" \
  "a failing case shows the sanitizer reports written while it ran, and no older one"

# guards.c: a program built with the edge guards writes what it took
if command -v clang >/dev/null 2>&1; then
  cat > "$tmp/p.c" <<'C'
#include <stdlib.h>
#include <string.h>
static int f(int x) { if (x > 2) return x * 2; return x + 1; }
int main(int argc, char **argv)
{
	int s = 0;
	if (argc > 1 && !strcmp(argv[1], "more"))
		for (int i = 0; i < 5; i++)
			s += f(i);
	return s > 100 ? 1 : 0;
}
C
  clang -O0 -c "$src/tools/cover/guards.c" -o "$tmp/guards.o" &&
    clang -O0 -fsanitize-coverage=trace-pc-guard "$tmp/p.c" "$tmp/guards.o" -o "$tmp/p"
  ok $? "a program builds with -fsanitize-coverage=trace-pc-guard and tools/cover/guards.c"
  mkdir "$tmp/few" "$tmp/more" "$tmp/none"
  EVALSET_COVER_DIR=$tmp/few "$tmp/p"; EVALSET_COVER_DIR=$tmp/more "$tmp/p" more; "$tmp/p"
  few=$(bits "$tmp"/few/*.bits 2>/dev/null || echo 0) more=$(bits "$tmp"/more/*.bits 2>/dev/null || echo 0)
  ok "$([ "$(ls "$tmp/few" | wc -l)" = 1 ] && [ "$few" -gt 0 ] && echo 0)" \
    "each process writes one bitmap of the edges it took ($few)"
  ok "$([ "$more" -gt "$few" ] && echo 0)" "a run down more branches sets more edges ($more > $few)"
  mkdir "$tmp/more2"; EVALSET_COVER_DIR=$tmp/more2 "$tmp/p" more
  cmp -s "$tmp"/more/*.bits "$tmp"/more2/*.bits
  ok $? "the same binary down the same branches writes the same bitmap (its edges numbered alike)"
  ok "$([ -z "$(ls -A "$tmp/none")" ] && echo 0)" "without EVALSET_COVER_DIR nothing is written"
  EVALSET_COVER_DIR=$tmp/few "$tmp/p" more
  ok "$([ "$(ls "$tmp/few" | wc -l)" = 2 ] && echo 0)" "a second process in the same folder adds its own file"
else
  for d in "guards.c builds" "one bitmap per process" "more branches, more edges" "stable numbering" \
      "nothing without the folder" "a second process"; do
    ok 1 "$d: clang is not installed (Debian: apt-get install clang)"
  done
fi

# select.py: made-up cases and edges (bit i of the value: edge i)
mk() { # mk CASE SECONDS EDGES...: a case folder, its time and one bitmap
  local name=$1
  mkdir -p "$tmp/cases/$name" "$tmp/cov/$name"; echo true > "$tmp/cases/$name/cmd"
  echo "$2" > "$tmp/cov/$name.time"; shift 2
  python3 -c '
import sys
v = 0
for e in sys.argv[2:]:
    v |= 1 << int(e)
open(sys.argv[1], "wb").write(v.to_bytes(4, "little"))' "$tmp/cov/$name/1.0.bits" "$@"
}
mk a-wide 1 0 1 2 3 4 5          # 6 edges in 1 s
mk b-slow-wide 10 0 1 2 3 4 5 6 7  # 8 edges in 10 s: a-wide and c-two reach them in 2
mk c-two 1 6 7                   # edges 6, 7 in 1 s
mk d-same 1 1 2                  # nothing new after a-wide
mk e-none 1                      # no edge: always run
mk f-last 2 8                    # one edge of its own
python3 "$src/tools/cover/select.py" "$tmp/cov" "$tmp/cases" > "$tmp/order" 2> "$tmp/err"
ok $? "select.py orders made-up cases"
got=$(grep -v '^#' "$tmp/order" | tr '\n' ' ')
want="e-none 0.0 a-wide 66.6 c-two 88.8 f-last 100.0 b-slow-wide 100.0 d-same 100.0 "
ok "$([ "$got" = "$want" ] && echo 0)" "no-edge cases first, then most new edges per second, the rest at 100.0 ($got)"
grep -q "edges reached by all 6 cases: 9; 4 cases reach them all" "$tmp/order"
ok $? "the header gives the edges and how many cases reach them all"

# run.sh with EVALSET_CLI_COVER over those cases, with that order
runs() { # runs P: the cases run.sh runs up to P%
  EVALSET_CLI_COVER_ORDER=$tmp/order EVALSET_CLI_COVER=$1 bash "$src/tests/cli/run.sh" "$evalset" "$tmp/cases" 2>&1 |
    sed -n 's/^ok [0-9]* - //p' | tr '\n' ' '
}
ok "$([ "$(runs 100)" = "a-wide c-two e-none f-last " ] && echo 0)" "up to 100%: the cases that reach every edge, and no other ($(runs 100))"
ok "$([ "$(runs 80)" = "a-wide c-two e-none " ] && echo 0)" "up to 80%: up to the first case at 80% or above ($(runs 80))"
ok "$([ "$(runs 66.6)" = "a-wide e-none " ] && echo 0)" "a tenth of a percent counts ($(runs 66.6))"
mk g-new 1 9
ok "$([ "$(runs 80)" = "a-wide c-two e-none g-new " ] && echo 0)" "a case the order does not name runs in every build"
ok "$([ "$(EVALSET_CLI_COVER_ORDER=$tmp/order bash "$src/tests/cli/run.sh" "$evalset" "$tmp/cases" | grep -c '^ok')" = 7 ] && echo 0)" \
  "without EVALSET_CLI_COVER every case runs"
ok "$([ "$(EVALSET_CLI_COVER_ORDER=$tmp/order EVALSET_CLI_COVER=80 bash "$src/tests/cli/run.sh" "$evalset" "$tmp/cases" d-same | grep -c '^ok')" = 1 ] && echo 0)" \
  "cases named on the command line run whatever the order says"
for bad in 101 abc 50.55 -1; do
  out=$(EVALSET_CLI_COVER_ORDER=$tmp/order EVALSET_CLI_COVER=$bad bash "$src/tests/cli/run.sh" "$evalset" "$tmp/cases" 2>&1); rc=$?
  ok "$([ "$rc" != 0 ] && [[ "$out" == *"Bail out! EVALSET_CLI_COVER must be a percentage"* ]] && echo 0)" "EVALSET_CLI_COVER=$bad is refused"
done
rm -r "$tmp/cases/d-same"
out=$(EVALSET_CLI_COVER_ORDER=$tmp/order EVALSET_CLI_COVER=80 bash "$src/tests/cli/run.sh" "$evalset" "$tmp/cases" 2>&1); rc=$?
ok "$([ "$rc" != 0 ] && [[ "$out" == *"names 'd-same', which is no case"* ]] && echo 0)" "an order naming a case that is gone is refused"

# the committed order: every line a case of tests/cli/cases with a
# percentage, never falling, ending at 100.0
python3 - "$src/tests/cli/cover-order.txt" "$src/tests/cli/cases" > "$tmp/check" 2>&1 <<'PY'
import os, re, sys
order, cases = sys.argv[1:]
last, seen = 0.0, set()
for i, line in enumerate(open(order), 1):
    if line.startswith("#"):
        continue
    m = re.fullmatch(r"(\S+) (\d{1,3}\.\d)\n", line)
    assert m, f"line {i}: not 'CASE PERCENT': {line!r}"
    name, pct = m.group(1), float(m.group(2))
    assert os.path.isfile(os.path.join(cases, name, "cmd")), f"line {i}: no case '{name}'"
    assert name not in seen, f"line {i}: '{name}' twice"
    assert last <= pct <= 100.0, f"line {i}: {pct} after {last}"
    seen.add(name)
    last = pct
assert last == 100.0, f"the order ends at {last}, not 100.0"
PY
ok $? "tests/cli/cover-order.txt names existing cases once each, its percentages rising to 100.0 $(tr '\n' ' ' < "$tmp/check")"

tap_end
