# What the end-to-end tests of `evalset generate` share (t-generate.sh,
# t-generate-quality.sh), sourced after lib.sh: a scratch case with a corpus,
# the generate command lines, counts read from the set and the journal, and
# a sentinel API key that no file may hold.

# A corpus of 24 chunks in 6 documents, distinct words per chunk.
make_case() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	make_corpus chunks.jsonl 24 5 400 2
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
}
# gen and gen_bg test generation alone (request counts are exact); genq and
# genq_bg run the critique and verification passes too, as a user gets them
gen_bg() { ( exec "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --no-critique --no-verify "$@" ) & }
gen() { "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --no-critique --no-verify "$@"; }
genq_bg() { ( exec "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" "$@" ) & }
genq() { "$evalset" generate demo --corpus chunks.jsonl --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" "$@"; }
count_q() { grep -c '^- id: q-' sets/demo/set.yaml; }
ok_records() { grep -c '"status":"ok"' sets/demo/.evalset/generate.jsonl; }

export OPENAI_API_KEY=sk-SENTINEL-7f3a9c
