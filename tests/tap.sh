# Sourced by the shell tests that print TAP: a scratch folder $tmp, removed
# at exit; ok RC DESCRIPTION, one test point (passed when RC is 0); and
# tap_end, the plan line, its status failed when a point failed.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0
ok() {  # ok RC DESCRIPTION
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2"; else failed=$((failed + 1)); echo "not ok $n - $2"; fi
}
tap_end() {
  echo "1..$n"
  [ "$failed" = 0 ]
}
