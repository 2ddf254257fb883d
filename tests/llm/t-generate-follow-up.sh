#!/usr/bin/env bash
# End-to-end tests of `evalset generate --kinds follow-up` against
# tests/fakes/fake_llm.py, printing TAP: which chunks get a follow-up (a
# question of the set on the chunk or its document), the history and
# conversation each follow-up carries, the verification that drops a
# follow-up its chunk answers without the history (and one it does not
# answer even with it), `check` on the result, the dry-run estimate, and
# resume after kill -9 in generation and in verification.
#
# usage: t-generate-follow-up.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gen-lib.sh"

# 12 chunks in 3 documents of 4: d0 (c-00..c-03) holds q-0001's chunk, d1
# (c-04..c-07) q-0002's, d2 no question's. c-03 makes the fake write a
# self-contained question, c-05 makes its verifier find no answer even with
# the history.
make_fu_case() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	python3 - <<'EOF'
import json, random
random.seed(3)
words = ["w%03d" % i for i in range(300)]
with open("chunks.jsonl", "w") as f:
    for i in range(12):
        extra = {3: " STANDALONE-FOLLOW-UP", 5: " NOT-EVEN-WITH-HISTORY"}.get(i, "")
        f.write(json.dumps({"id": "c-%02d" % i, "doc": "d%d" % (i // 4), "title": "Doc %d" % (i // 4),
                            "text": "Setting " + " ".join(random.sample(words, 30)) + "." + extra}) + "\n")
EOF
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
	python3 - <<'EOF'
s = open("sets/demo/set.yaml").read().replace("questions: []", """questions:
  - id: q-0001
    text: How do I turn on the nightly export?
    relevant: [c-00]
    answer: Under Settings, Export
  - id: q-0002
    text: Which port does the relay listen on?
    conversation: {id: conv-9, turn: 1}
    relevant: [c-04]
""")
open("sets/demo/set.yaml", "w").write(s)
EOF
	cp sets/demo/set.yaml before.yaml
}

# Print one line per synthetic question: id, chunk, earlier, conversation
# id, turn, and the history as role=text joined by '|'.
follow_ups() {
	python3 - <<'EOF'
import re
text = open("sets/demo/set.yaml").read()
for b in re.split(r"\n- id: ", text)[1:]:
    if "origin: synthetic" not in b:
        continue
    qid = b.split("\n", 1)[0]
    conv = re.search(r"conversation: \{id: ([^,]*), turn: (\d+)\}", b)
    hist = re.findall(r"- \{role: (\w+), text: '([^']*)'\}", b)
    chunk = re.search(r"\n    chunk: (\S+)", b).group(1)
    earlier = re.search(r"\n    earlier: (\S+)", b)
    print(qid, chunk, earlier.group(1) if earlier else "-", conv.group(1) if conv else "-",
          conv.group(2) if conv else "-", "|".join(r + "=" + t for r, t in hist))
EOF
}

# ---- the dry run: one request per chunk with an earlier question, two checks each ----
make_fu_case dry
start_fake
genq --kinds follow-up --dry-run >out 2>err
is "$?" 0 "dry run succeeds"
grep -q "dry run: 8 generation requests to send" out && grep -q "up to 16 verification requests" out &&
	grep -q "up to 0 critique requests" out
ok $? "dry run: 8 follow-up requests (d2 has no question), each checked twice, no critique" "$(cat out err)"
is "$(stat_py 'd["requests"]')" 0 "dry run sends nothing"
stop_fake

# ---- generate: history, conversation, verification ----
make_fu_case gen
start_fake
genq --kinds follow-up --concurrency 2 >out 2>err
is "$?" 0 "generate --kinds follow-up succeeds" "$(cat err)"
grep -q "(4 follow-up skipped: no question of the set on the chunk or its document)" out
ok $? "the chunks of a document without questions are skipped and counted" "$(cat out)"
grep -q "verification of 8 follow-ups: dropped 1 its chunk answers without the history, 1 its chunk does not answer with it" out
ok $? "the standalone follow-up and the unsupported one are dropped and counted" "$(cat out)"
follow_ups >fu.txt
is "$(wc -l <fu.txt)" 6 "six follow-ups kept"
! grep -q " c-03 \| c-05 \| c-0[89] \| c-1[01] " fu.txt
ok $? "none of the standalone chunk, the unsupported one, or a chunk without an earlier question" "$(cat fu.txt)"
python3 - <<'EOF' >check.txt
rows = [l.split(" ", 5) for l in open("fu.txt").read().splitlines()]
h1 = "user=How do I turn on the nightly export?|assistant=Under Settings, Export"
h2 = "user=Which port does the relay listen on?"
bad = []
for qid, chunk, earlier, conv, turn, hist in rows:
    want = {"q-0001": h1, "q-0002": h2}.get(earlier)
    if hist != want or turn != "2":
        bad.append(qid + " history/turn")
    d = int(chunk[2:]) // 4
    if earlier != "q-0%03d" % (d + 1):
        bad.append(qid + " earlier")
convs = [r[3] for r in rows]
if len(set(convs)) != len(convs):
    bad.append("conversation shared")
# replies come back in any order, and a follow-up verification drops may
# already have taken a name or conv-9's next turn: names are unique and
# follow their earlier question, without promising which or no gap
import re
if convs.count("conv-9") > 1:
    bad.append("conv-9 continued %d times" % convs.count("conv-9"))
for qid, chunk, earlier, conv, turn, hist in rows:
    if conv != "conv-9" and not re.fullmatch(re.escape(earlier) + r"(\.[2-9])?", conv):
        bad.append(qid + " conversation " + conv)
    if conv == "conv-9" and earlier != "q-0002":
        bad.append(qid + " continues conv-9")
print(" ".join(bad) or "ok")
EOF
is "$(cat check.txt)" ok "each follow-up: the earlier turn (and its answer when the set has one) as history, turn 2, a conversation of its own named after the earlier question, or the next turn of conv-9"
grep -q "alone: unanswered" sets/demo/set.yaml && [ "$(grep -c '^      with_history: answered' sets/demo/set.yaml)" = 6 ]
ok $? "each kept follow-up records its two checks"
python3 -c "
import sys
a, b = open('before.yaml').read().split('questions:')[1], open('sets/demo/set.yaml').read().split('- id: q-0003')[0]
sys.exit(0 if all(l.strip() in b for l in a.strip().splitlines()) and b.count('conversation:') == 1 else 1)"
ok $? "the earlier questions are not edited"
"$evalset" check demo >chk 2>&1
is "$?" 0 "check passes on the result (conversation rules)" "$(cat chk)"
grep -q "^0 errors" chk; ok $? "check: no error"
[ ! -s sets/demo/.evalset/critique.jsonl ] && ! grep -q "critique:" sets/demo/set.yaml
ok $? "the critique does not rate follow-ups (read alone, they are unclear by design)"
before=$(stat_py 'd["requests"]')
genq --kinds follow-up --concurrency 2 >out 2>err
is "$(stat_py 'd["requests"]')" "$before" "a rerun asks nothing again"
is "$(follow_ups | wc -l)" 6 "a rerun adds nothing"
stop_fake

# ---- --no-verify keeps what the verification would drop ----
make_fu_case noverify
start_fake
genq --kinds follow-up --no-verify >out 2>err
is "$(follow_ups | wc -l)" 8 "--no-verify: all eight follow-ups kept"
follow_ups | grep -q "^q-[0-9]* c-03 q-0001 q-0001[.0-9]* 2 "
ok $? "--no-verify: the standalone one of c-03 among them"
stop_fake

# ---- kill -9 in generation, then in verification: resume asks only what is missing ----
for pass in generate verify; do
	make_fu_case "kill-$pass"
	start_fake --latency 150
	genq_bg --kinds follow-up --concurrency 2 >out 2>err
	pid=$!
	if [ $pass = generate ]; then
		wait_records sets/demo/.evalset/generate.jsonl 3 100
	else
		wait_records sets/demo/.evalset/verify.jsonl 5 200
	fi
	kill -9 $pid; wait $pid 2>/dev/null
	gj=$(grep -c '"status":"ok"' sets/demo/.evalset/generate.jsonl)
	vj=$(grep -c '"status":"ok"' sets/demo/.evalset/verify.jsonl 2>/dev/null)
	vj=${vj:-0}
	before=$(stat_py 'd["requests"]')
	if [ $pass = generate ]; then
		ok $([ "$gj" -ge 3 ] && [ "$gj" -lt 8 ] && echo 0 || echo 1) "killed in generation ($gj of 8 journaled)"
	else
		ok $([ "$gj" = 8 ] && [ "$vj" -ge 5 ] && [ "$vj" -lt 16 ] && echo 0 || echo 1) "killed in verification ($vj of 16 journaled)"
	fi
	genq --kinds follow-up --concurrency 2 >out 2>err
	is "$?" 0 "$pass: resume succeeds" "$(cat err)"
	after=$(stat_py 'd["requests"]')
	is "$((after - before))" "$((8 - gj + 16 - vj))" "$pass: resume sends exactly the unjournaled requests"
	is "$(follow_ups | wc -l)" 6 "$pass: the same six follow-ups as an uninterrupted run"
	is "$(grep -c '^      with_history: answered' sets/demo/set.yaml)" 6 "$pass: each verified"
	"$evalset" check demo >/dev/null 2>&1
	is "$?" 0 "$pass: check passes after the resume"
	stop_fake
done

cd "$root" || exit 1
! grep -rq "SENTINEL" "$root"; ok $? "no file written by any case holds the API key"

echo "1..$n"
[ "$failed" -eq 0 ]
