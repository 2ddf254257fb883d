#!/usr/bin/env bash
# Score the built-in BM25 on XQuAD in every language, with and without
# stemming, and print the table of docs/languages.md.
#
#   tools/xquad-bench.sh [EVALSET [XQUAD_DIR]]
#
# EVALSET defaults to build/evalset, XQUAD_DIR to ../shared/data/xquad (the
# 12 files of the XQuAD repository); tests/data/xquad holds a subset.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
evalset=${1:-$here/build/evalset}
data=${2:-$here/../shared/data/xquad}
langs=(en es de el ru tr ar vi th zh hi ro)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

measure() { # measure DIR RUN: "R@1 R@10"
  "$evalset" score "$1" "$2" -m R@1 -m R@10 --format csv |
    awk -F, '$1 == "R@1" { r1 = $2 } $1 == "R@10" { r10 = $2 } END { printf "%.3f %.3f\n", r1, r10 }'
}

declare -A r1 r10 r1s r10s
for l in "${langs[@]}"; do
  f=$data/xquad.$l.json; [ -f "$f" ] || f=$f.gz
  python3 "$here/tools/xquad-set.py" "$f" "$work/$l"
  "$evalset" run "$work/$l" -o "$work/$l.stem.jsonl" 2>/dev/null
  "$evalset" run "$work/$l" --no-stem -o "$work/$l.plain.jsonl" 2>/dev/null
  read -r r1s[$l] r10s[$l] < <(measure "$work/$l" "$work/$l.stem.jsonl")
  read -r r1[$l] r10[$l] < <(measure "$work/$l" "$work/$l.plain.jsonl")
done

row() { # row LABEL ARRAY
  local -n a=$2
  printf '| %s |' "$1"
  for l in "${langs[@]}"; do printf ' %s |' "${a[$l]}"; done
  printf '\n'
}
printf '| |'; printf ' %s |' "${langs[@]}"; printf '\n'
printf '|---|'; for _ in "${langs[@]}"; do printf -- '---|'; done; printf '\n'
row "R@1 (stemming, the default)" r1s
row "R@10 (stemming, the default)" r10s
row "R@1 --no-stem" r1
row "R@10 --no-stem" r10
