# Helpers for the gate-* cases (sourced by their setup; not a case itself).
#
# gate_demo      copy the shipped demo set to sets/demo (v1 and v2 differ
#                in the text of q-0156) and make base.jsonl, a BM25 run on
#                v1 without stemming, and cand.jsonl, with stemming
# unanswerable   print the ids of the unanswerable questions of demo@v1

gate_demo() {
  mkdir -p sets
  cp -a "$SRC/sets/squad-demo" sets/demo
  rm -rf sets/demo/.evalset
  "$EVALSET" run sets/demo@v1 --bm25 --no-stem -k 20 -o base.jsonl 2>/dev/null
  "$EVALSET" run sets/demo@v1 --bm25 --stem -k 20 -o cand.jsonl 2>/dev/null
}

unanswerable() {
  "$EVALSET" score sets/demo@v1 base.jsonl --format json 2>/dev/null |
    python3 -c 'import json, sys; [print(q["id"]) for q in json.load(sys.stdin)["questions"] if not q["answerable"]]'
}
