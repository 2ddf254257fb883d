#!/usr/bin/env bash
# The demo: the main job of evalset on the shipped set, end to end, offline.
# Scores plain BM25 and BM25 with stemming on sets/squad-demo@v1, compares
# them under the set's gate file, writes an HTML report, shows
# conversations, document-level measures and leaks on
# sets/squad-demo-chat@v1, and exits with the first gate's verdict (0
# passed, 1 failed). Outputs go to demo-out/.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
evalset=${EVALSET:-build/evalset}
out=demo-out
set_ref=squad-demo@v1
mkdir -p "$out"

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

say "The set: the frozen version v1 of sets/squad-demo (SQuAD 2.0 paragraphs as chunks)"
run "$evalset" versions squad-demo || exit $?
run "$evalset" check "$set_ref" || exit $?

say "Retrieve: the built-in BM25, once without stemming (the baseline) and once with Snowball stemming in the set's language (the candidate, the default)"
run "$evalset" run "$set_ref" --no-stem -o "$out/bm25.jsonl" || exit $?
run "$evalset" run "$set_ref" --stem -o "$out/bm25-stem.jsonl" || exit $?

say "Score the candidate: recall, precision, hit rate, MRR and nDCG, as trec_eval computes them"
run "$evalset" score "$set_ref" "$out/bm25-stem.jsonl" --save "$out/bm25-stem.results.json" || exit $?
run "$evalset" score "$set_ref" "$out/bm25.jsonl" --save "$out/bm25.results.json" --format csv > "$out/bm25.scores.csv" || exit $?

say "Compare the candidate with the baseline under sets/squad-demo/gate.yaml (paired bootstrap and randomisation tests)"
"$evalset" compare "$set_ref" "$out/bm25.results.json" "$out/bm25-stem.results.json" \
	-m R@5 -m R@10 -m nDCG@10 -m RR \
	--gate sets/squad-demo/gate.yaml --markdown "$out/compare.md" --junit "$out/compare.junit.xml"
verdict=$?
if [ "$verdict" -gt 1 ]; then exit "$verdict"; fi

say "Report: $out/report.html (open it in a browser)"
run "$evalset" report "$set_ref" "$out/bm25.results.json" "$out/bm25-stem.results.json" \
	--gate sets/squad-demo/gate.yaml -o "$out/report.html" || exit $?

say "Conversations, documents and leaks: sets/squad-demo-chat@v1, three conversations and a few forbidden chunks over the same paragraphs (docs/demo.md)"
chat=squad-demo-chat@v1
run "$evalset" run "$chat" -o "$out/chat-history.jsonl" || exit $?
run "$evalset" run "$chat" --query-form turn -o "$out/chat-turn.jsonl" || exit $?
say "With the history, then with the turn alone: follow-ups lose recall without the turns before them; DocR@5 counts the right article whichever paragraph; Leak@5 lists the questions that retrieved a forbidden chunk"
run "$evalset" score "$chat" "$out/chat-history.jsonl" -m R@5 -m DocR@5 -m Leak@5 || exit $?
printf '$ %s\n' "$evalset score $chat $out/chat-turn.jsonl -m R@5 -m DocR@5 | sed -n '/^by turn/,\$p'"
"$evalset" score "$chat" "$out/chat-turn.jsonl" -m R@5 -m DocR@5 | sed -n '/^by turn/,$p'
say "Compare asking with the history (candidate) against the turn alone (baseline) under sets/squad-demo-chat/gate.yaml: recall passes, and a single leak fails the gate whatever the recall (this verdict is shown, not the demo's exit code)"
printf '$ %s\n' "$evalset compare $chat $out/chat-turn.jsonl $out/chat-history.jsonl --gate sets/squad-demo-chat/gate.yaml"
"$evalset" compare "$chat" "$out/chat-turn.jsonl" "$out/chat-history.jsonl" \
	--gate sets/squad-demo-chat/gate.yaml 2>/dev/null | sed -n '/^gate/p;/^  \(pass\|FAIL\)  /p' | sed -n '1,/^gate/p' | sed '$d'

if [ "$verdict" -eq 0 ]; then
	say "Verdict (stemming on squad-demo@v1, the demo's exit code): the gate PASSED. Stemming does not lose recall on squad-demo@v1; this change could merge."
else
	say "Verdict (stemming on squad-demo@v1, the demo's exit code): the gate FAILED. The candidate loses recall on squad-demo@v1; CI would block this merge."
fi
exit "$verdict"
