# Helpers for the cmp-* cases (sourced by their setup; not a case itself).
#
# cmp_set NAME N UNANS_EVERY    write sets/NAME/set.yaml with N questions,
#                               every UNANS_EVERY-th unanswerable (0: none),
#                               origins synthetic/mined/hand in turn, tag
#                               "hard" on every third; then tag it v1.
# cmp_results OUT NAME N UNANS_EVERY LOSE_EVERY [DECLINE]
#                               write a results file for sets/NAME@v1: every
#                               answerable question found at rank 2, except
#                               every LOSE_EVERY-th (0: none) pushed to rank
#                               20; unanswerable ones declined when DECLINE
#                               is 1 (default 1).

cmp_set() {
  local name=$1 n=$2 every=$3 i
  mkdir -p "sets/$name"
  {
    printf 'evalset: 1\nname: %s\nquestions:\n' "$name"
    for ((i = 1; i <= n; i++)); do
      printf '  - id: q-%04d\n    text: question number %d\n' "$i" "$i"
      case $((i % 3)) in 1) o=synthetic ;; 2) o=mined ;; 0) o=hand ;; esac
      printf '    origin: %s\n' "$o"
      if [ "$every" -gt 0 ] && [ $((i % every)) -eq 0 ]; then
        printf '    answerable: false\n'
      else
        printf '    relevant: [c-%d]\n' "$i"
      fi
      [ $((i % 3)) -eq 0 ] && printf '    tags: [hard]\n'
    done
  } > "sets/$name/set.yaml"
  "$EVALSET" tag "sets/$name" v1 -m "first" >/dev/null
}

cmp_results() {
  local out=$1 name=$2 n=$3 every=$4 lose=$5 decline=${6:-1} i digest sep=""
  digest=$(sed -n 's/^digest: //p' "sets/$name/versions/v1.yaml")
  {
    printf '{"evalset_results": 1, "set": {"name": "%s", "version": "v1", "digest": "%s"},\n' "$name" "$digest"
    printf ' "run": {"path": "%s", "sha256": null, "name": "%s"}, "k": 5, "depth": 50,\n' "$out" "${out%.json}"
    nu=0; [ "$every" -gt 0 ] && nu=$((n / every))
    printf ' "measures": ["R@5", "RR"], "aggregate": {"R@5": null, "RR": null},\n'
    printf ' "decline": {"Decline": null, "FalseDecline": null, "unanswerable": %d, "answerable": %d},\n "questions": [\n' "$nu" $((n - nu))
    for ((i = 1; i <= n; i++)); do
      case $((i % 3)) in 1) o=synthetic ;; 2) o=mined ;; 0) o=hand ;; esac
      tags='[]'; [ $((i % 3)) -eq 0 ] && tags='["hard"]'
      if [ "$every" -gt 0 ] && [ $((i % every)) -eq 0 ]; then
        dec=false; [ "$decline" = 1 ] && dec=true
        printf '%s  {"id": "q-%04d", "text": "question number %d", "origin": "%s", "answerable": false, "tags": %s, "missing": false, "declined": %s, "num_ret": 0, "num_rel": 0, "rel_ranks": [], "top": [], "values": {}}\n' \
          "$sep" "$i" "$i" "$o" "$tags" "$dec"
      else
        rank=2; r5=1; rr=0.5
        if [ "$lose" -gt 0 ] && [ $((i % lose)) -eq 0 ]; then rank=20; r5=0; rr=0.05; fi
        printf '%s  {"id": "q-%04d", "text": "question number %d", "origin": "%s", "answerable": true, "tags": %s, "missing": false, "declined": false, "num_ret": 50, "num_rel": 1, "rel_ranks": [%d], "top": ["c-x"], "values": {"R@5": %s, "RR": %s}}\n' \
          "$sep" "$i" "$i" "$o" "$tags" "$rank" "$r5" "$rr"
      fi
      sep=","
    done
    printf ' ]}\n'
  } > "$out"
}
