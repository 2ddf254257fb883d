# Helpers for the cmp-* cases (sourced by their setup; not a case itself).
#
# cmp_set NAME N UNANS_EVERY    write sets/NAME/set.yaml with N questions,
#                               every UNANS_EVERY-th unanswerable (0: none),
#                               origins synthetic/mined/hand in turn, tag
#                               "hard" on every third; then tag it v1.
# cmp_results OUT NAME N UNANS_EVERY LOSE_EVERY [DECLINE]
#                               write a run OUT without .json + .jsonl for
#                               sets/NAME@v1 (50 results a question: every
#                               answerable question's chunk at rank 2, except
#                               every LOSE_EVERY-th (0: none) at rank 20;
#                               unanswerable ones declined, an empty list,
#                               when DECLINE is 1 (default 1)), and score it
#                               (R@5, RR, or the measures $CMP_MEASURES)
#                               into the results file OUT; on version
#                               $CMP_VERSION when set.

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
  local out=$1 name=$2 n=$3 every=$4 lose=$5 decline=${6:-1} i rank r
  r=${out%.json}.jsonl
  {
    for ((i = 1; i <= n; i++)); do
      if [ "$every" -gt 0 ] && [ $((i % every)) -eq 0 ]; then
        if [ "$decline" = 1 ]; then
          printf '{"qid": "q-%04d", "results": []}\n' "$i"
        else
          printf '{"qid": "q-%04d", "results": ["x-1", "x-2", "x-3"]}\n' "$i"
        fi
      else
        rank=2
        [ "$lose" -gt 0 ] && [ $((i % lose)) -eq 0 ] && rank=20
        printf '{"qid": "q-%04d", "results": [' "$i"
        for ((k = 1; k <= 50; k++)); do
          [ $k -gt 1 ] && printf ', '
          if [ $k = $rank ]; then printf '"c-%d"' "$i"; else printf '"x-%d"' "$k"; fi
        done
        printf ']}\n'
      fi
    done
  } > "$r"
  local m=() x
  for x in ${CMP_MEASURES:-R@5 RR}; do m+=(-m "$x"); done
  "$EVALSET" score "sets/$name@${CMP_VERSION:-v1}" "$r" "${m[@]}" --save "$out" >/dev/null 2>&1
}

# cmp_json FILE EXPR             edit the JSON file FILE in place: EXPR is a
#                               Python statement on 'd' (the parsed file),
#                               e.g. d["set"]["digest"] = "sha256:1111"
cmp_json() {
  python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[2])
json.dump(d, open(sys.argv[1], "w"), indent=1)
PY
}

# cmp_tag NAME TAG I...         tag questions I... of sets/NAME with TAG in the
#                               working copy, and make that v1 again (the
#                               versions are dropped first)
cmp_tag() {
  local name=$1 tag=$2; shift 2
  python3 - "sets/$name/set.yaml" "$tag" "$@" <<'PY'
import sys
path, tag, ids = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
s = open(path).read()
for i in ids:
    old = "    relevant: [c-%d]\n" % i
    if old + "    tags: [hard]\n" in s:
        s = s.replace(old + "    tags: [hard]\n", old + "    tags: [hard, %s]\n" % tag, 1)
    else:
        s = s.replace(old, old + "    tags: [%s]\n" % tag, 1)
open(path, "w").write(s)
PY
  rm -r "sets/$name/versions"
  "$EVALSET" tag "sets/$name" v1 -m "first" >/dev/null
}

# cmp_lose IN OUT NAME I...     write OUT.jsonl: the run IN.jsonl with the
#                               chunks of questions I... moved from rank 2 to
#                               rank 30, and score it into OUT.json as
#                               cmp_results does
cmp_lose() {
  local in=$1 out=$2 name=$3; shift 3
  python3 - "$in.jsonl" "$out.jsonl" "$@" <<'PY'
import json, sys
ids = {"q-%04d" % int(x) for x in sys.argv[3:]}
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        o = json.loads(line)
        if o["qid"] in ids:
            c = o["results"][1]
            o["results"][1], o["results"][29] = "x-2", c
        out.write(json.dumps(o) + "\n")
PY
  local m=() x
  for x in ${CMP_MEASURES:-R@5 RR}; do m+=(-m "$x"); done
  "$EVALSET" score "sets/$name@${CMP_VERSION:-v1}" "$out.jsonl" "${m[@]}" --save "$out.json" >/dev/null 2>&1
}
