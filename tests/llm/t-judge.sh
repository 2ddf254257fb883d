#!/usr/bin/env bash
# End-to-end tests of `evalset pool`, `evalset judge` and `evalset label`
# against tests/fakes/fake_llm.py (judge mode), printing TAP. Each case gets
# its own fake server (a coprocess that exits when this script closes its
# stdin or exits) and a scratch directory.
#
# usage: t-judge.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"

# A corpus of 30 chunks, each with a unique marker word "mkNN"; a set of 6
# questions (q-0001..q-0006; q-0006 unanswerable), each labelled with one
# relevant chunk; two runs that return 5 documents per question, overlapping.
# The case is made once (in $root/.case) and copied: every file of it is
# the same each time, and the set's paths are relative.
make_case() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"
	if [ ! -d "$root/.case" ]; then
		mkdir -p "$root/.case.tmp" && (cd "$root/.case.tmp" && make_case_files) &&
			mv "$root/.case.tmp" "$root/.case" || exit 1
	fi
	cp -a "$root/.case/." "$w/" && cd "$w" || exit 1
}
make_case_files() {
	python3 - <<'EOF'
import json, random
random.seed(9)
vocab = ["w%03d" % i for i in range(300)]
with open("chunks.jsonl", "w") as f:
    for i in range(30):
        f.write(json.dumps({"id": "c-%02d" % i, "title": "Doc %d" % (i // 5),
                            "text": "mk%02d " % i + " ".join(random.sample(vocab, 20)) + "."}) + "\n")
cases = []
for q in range(5):
    cases.append({"text": "Question number %d about w%03d?" % (q, q), "relevant": ["c-%02d" % (q * 5)]})
cases.append({"text": "Is there anything about the moon?", "answerable": False})
json.dump(cases, open("cases.json", "w"))
with open("a.trec", "w") as f:
    for q in range(6):
        for r in range(5):
            f.write("q-%04d Q0 c-%02d %d %d a\n" % (q + 1, (q * 5 + r) % 30, r + 1, 50 - r))
with open("b.jsonl", "w") as f:
    for q in range(6):
        f.write(json.dumps({"qid": "q-%04d" % (q + 1), "results": ["c-%02d" % ((q * 5 + r + 3) % 30) for r in range(5)]}) + "\n")
EOF
	python3 -c 'import json,sys; [print("- text: %s\n  %s" % (json.dumps(c["text"]), "relevant: [%s]" % c["relevant"][0] if "relevant" in c else "answerable: false")) for c in json.load(open("cases.json"))]' > cases.yaml
	"$evalset" init demo --corpus chunks.jsonl >/dev/null 2>&1 || exit 1
	"$evalset" add demo --from cases.yaml >/dev/null 2>&1 || exit 1
	"$evalset" tag demo v1 >/dev/null 2>&1 || exit 1
	"$evalset" pool demo@v1 a.trec b.jsonl --depth 5 -o pool.yaml >pool.out 2>pool.err || exit 1
}
judge() { "$evalset" judge pool.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" "$@"; }
nulls() { grep -c "grade: null" pool.yaml; }
graded() { grep -c "grade: [0-3]" pool.yaml; }

export OPENAI_API_KEY=sk-SENTINEL-4b1d2e

# ---- the worksheet: union of unlabelled top-5 documents of both runs ----
make_case basic
# per answerable question: a.trec ranks q*5..q*5+4, b.jsonl q*5+3..q*5+7; the
# relevant chunk q*5 is labelled: 7 unlabelled documents each, 35 in all
is "$(grep -c '^  - chunk: ' pool.yaml)" 35 "pool holds the 35 unlabelled pairs (5 questions x 7)"
is "$(nulls)" 35 "every pair starts ungraded"
grep -q "found_by: \[{run: a, rank: 4}, {run: b, rank: 1}\]" pool.yaml; ok $? "a pair found by both runs lists both ranks"
! grep -q "id: q-0006" pool.yaml; ok $? "the unanswerable question is not pooled"
"$evalset" pool demo@v1 a.trec -o pool.yaml >out 2>err
is "$?" 2 "an existing worksheet is not replaced"
grep -q -- "--force" err; ok $? "the message names --force"

# ---- judge: every pair graded once, with its provenance; rerun sends nothing ----
start_fake --judge-grade 2
judge >out 2>err
is "$?" 0 "judge succeeds"
is "$(stat_py 'd["requests"]')" 35 "one request per pair"
is "$(nulls)" 0 "no pair left ungraded"
is "$(grep -c 'judge: llm:fake-1' pool.yaml)" 35 "every grade records judge llm:MODEL"
is "$(grep -c 'prompt: judge@sha256:' pool.yaml)" 35 "every grade records the prompt digest"
judge >out 2>err
is "$(stat_py 'd["requests"]')" 35 "rerun sends no request"
# a fresh worksheet over the same pairs is graded from the journal
"$evalset" pool demo@v1 a.trec b.jsonl --depth 5 -o pool.yaml --force >/dev/null 2>&1
judge >out 2>err
is "$(stat_py 'd["requests"]')" 35 "a rebuilt worksheet is graded from the journal"
is "$(graded)" 35 "and every pair holds its grade"
grep -q "35 graded from the journal" out; ok $? "summary says the grades came from the journal" "$(cat out)"
! grep -rq "SENTINEL" out err pool.yaml sets/; ok $? "the key appears in no output, pool or journal"
stop_fake

# ---- people's grades are kept and not asked ----
make_case human
python3 - <<'EOF'
s = open("pool.yaml").read()
s = s.replace("grade: null", "grade: 3\n    note: checked by hand", 2)
open("pool.yaml", "w").write(s)
EOF
start_fake --judge-grade 0
judge >out 2>err
is "$(stat_py 'd["requests"]')" 33 "pairs graded by people are not sent"
is "$(grep -c 'grade: 3' pool.yaml)" 2 "their grades are kept"
is "$(grep -c 'note: checked by hand' pool.yaml)" 2 "their notes are kept"
stop_fake

# ---- a 200 whose body is an error object is retried, never a grade or a recorded failure ----
make_case error200
start_fake --fault error200 --first-only
judge >out 2>err
is "$?" 0 "judge: 200 with an error object on first attempts, retried" "$(cat err)"
is "$(nulls)" 0 "every pair graded on the retry"
is "$(grep -c '"status":"unusable"' sets/demo/.evalset/judge.jsonl)" 0 "no error body journaled"
stop_fake

# ---- --deadline: stopped cleanly, grades kept, resumed ----
make_case deadline
start_fake --latency 400
judge --concurrency 1 --deadline 2s >out 2>err
is "$?" 3 "judge past its --deadline exits 3"
grep -q "stopped at --deadline 2s" err; ok $? "the message names the deadline" "$(cat err)"
kept=$(grep -c '"status":"ok"' sets/demo/.evalset/judge.jsonl)
ok $([ "$kept" -gt 0 ] && [ "$kept" -lt 35 ] && echo 0 || echo 1) "grades before the deadline journaled ($kept)"
judge >out 2>err
is "$?" 0 "the rerun finishes"
is "$(nulls)" 0 "every pair graded"
stop_fake

# ---- an unparseable reply is a recorded failure, never a 0 ----
make_case prose
start_fake --fault prose
judge >out 2>err
is "$?" 0 "judge with unparseable replies completes"
is "$(nulls)" 35 "no pair got a grade from an unparseable reply"
! grep -q "grade: 0" pool.yaml; ok $? "no silent zeros"
grep -q "35 unusable replies" out; ok $? "failures counted" "$(cat out)"
grep -q "ungraded" err; ok $? "warning says pairs stay ungraded"
is "$(grep -c '"status":"unusable"' sets/demo/.evalset/judge.jsonl)" 35 "failures journaled"
before=$(stat_py 'd["requests"]')
judge >out 2>err
is "$(stat_py 'd["requests"]')" "$before" "journaled failures are not asked again by default"
stop_fake
start_fake --judge-grade 1
judge --retry-failed >out 2>err
is "$?" 0 "--retry-failed run succeeds"
is "$(stat_py 'd["requests"]')" 35 "--retry-failed asks every failed pair again"
is "$(nulls)" 0 "and grades them"
stop_fake

# ---- a judge grade outside 0..3 is a failure, not a clamp ----
make_case outside
start_fake --judge-grade 4
judge >out 2>err
is "$?" 0 "judge with out-of-range grades completes"
is "$(nulls)" 35 "no grade 4 clamped into the pool"
grep -q '"why":"reply grade 4 is not an integer in 0..3' sets/demo/.evalset/judge.jsonl; ok $? "the journal says why"
stop_fake

# ---- kill -9 mid-run, then resume ----
make_case kill
start_fake --latency 150 --judge-grade 2
( exec "$evalset" judge pool.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --concurrency 2 ) >out 2>err &
pid=$!
wait_records sets/demo/.evalset/judge.jsonl 6 80
kill -9 $pid; wait $pid 2>/dev/null
journaled=$(grep -c '"status":"ok"' sets/demo/.evalset/judge.jsonl)
before=$(stat_py 'd["requests"]')
ok $([ "$journaled" -ge 6 ] && [ "$journaled" -lt 35 ] && echo 0 || echo 1) "killed mid-run ($journaled of 35 journaled)"
judge >out 2>err
is "$?" 0 "resume succeeds"
is "$(( $(stat_py 'd["requests"]') - before ))" "$((35 - journaled))" "resume sends exactly the unjournaled pairs"
is "$(graded)" 35 "every pair graded after resume"
stop_fake

# ---- Ctrl-C: exit 130, grades so far kept in the pool ----
make_case sigint
start_fake --latency 200 --judge-grade 2
( exec "$evalset" judge pool.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --concurrency 2 ) >out 2>err &
pid=$!
sleep 1.2
kill -INT $pid; wait $pid
is "$?" 130 "interrupted judge exits 130"
g=$(graded)
ok $([ "$g" -gt 0 ] && [ "$g" -lt 35 ] && echo 0 || echo 1) "grades obtained before the interrupt are in the pool ($g)"
judge >out 2>err
is "$(graded)" 35 "rerun completes the pool"
stop_fake

# ---- someone edits the pool while the judge runs: their edit is not overwritten ----
make_case edited
start_fake --latency 200 --judge-grade 2
( exec "$evalset" judge pool.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --concurrency 1 ) >out 2>err &
pid=$!
sleep 1
python3 - <<'EOF2'
s = open("pool.yaml").read()
open("pool.yaml", "w").write(s.replace("grade: null", "grade: 3\n    note: edited during the run", 1))
EOF2
wait $pid
is "$?" 2 "judge refuses to overwrite a pool edited during the run"
grep -q "changed while the judge ran" err; ok $? "the message says why" "$(cat err)"
is "$(grep -c 'note: edited during the run' pool.yaml)" 1 "the person's edit is kept"
before=$(stat_py 'd["requests"]')
judge >out 2>err
is "$?" 0 "the next run succeeds"
is "$(stat_py 'd["requests"]')" "$before" "and takes the grades from the journal without asking again"
is "$(graded)" 35 "every pair graded"
stop_fake

# ---- the same model generated the questions: a warning ----
make_case own
python3 - <<'EOF'
s = open("sets/demo/set.yaml").read()
s = s.replace("- id: q-0001\n", "- id: q-0001\n  provenance: {model: fake-1}\n", 1)
open("sets/demo/set.yaml", "w").write(s)
EOF
"$evalset" pool demo a.trec b.jsonl --depth 5 -o pool.yaml --force >/dev/null 2>&1
start_fake --judge-grade 1
judge >out 2>err
grep -q "generated 1 of the 5 pooled questions" err; ok $? "warning when the judge generated the questions" "$(cat err)"
"$evalset" judge pool.yaml --model other-2 --base-url "$BASE" --prompt-dir "$src/prompts" >out 2>err
! grep -q "generated" err; ok $? "no warning for another model"
stop_fake

# ---- agreement with the labels of a version ----
make_case kappa
# v1 labels: q-0001..q-0005 each relevant c-(q*5) at grade 1 (list form).
# People grade two pool pairs 0 (q-0001: c-01, c-02). The judge says 3 for
# c-00, c-05, 0 for c-10, c-15, c-20, and 0 for c-01, 2 for c-02.
python3 - <<'EOF'
import json, re
s = open("pool.yaml").read()
for c in ("c-01", "c-02"):
    s = re.sub(r"(chunk: %s\n(?:    .*\n)*?    grade: )null" % c, r"\g<1>0", s, count=1)
open("pool.yaml", "w").write(s)
json.dump({"mk00": 3, "mk05": 3, "mk10": 0, "mk15": 0, "mk20": 0, "mk01": 0, "mk02": 2}, open("grades.json", "w"))
EOF
start_fake --judge-grades grades.json
judge --against demo@v1 >out 2>err
is "$?" 0 "judge --against succeeds"
# pairs (label, judge): (1,3) (1,3) (1,0) (1,0) (1,0) from the set, (0,0) (0,2) from people
# binary [[1,1],[3,2]]: po 3/7; rows 2/7 5/7, cols 4/7 3/7: pe 23/49; kappa (21-23)/(49-23) = -1/13
# 4 levels: po 1/7; rows 2/7 5/7; cols 4/7 0 1/7 2/7: pe 8/49; kappa (7-8)/(49-8) = -1/41
grep -q "pairs: 7 labelled; 7 judged (2 of them graded by people in the pool)" out; ok $? "seven labelled pairs judged" "$(cat out)"
grep -qE "kappa \(binary, relevant = grade >= 1\): -0.077 \(95% interval -?[01]\.[0-9]{3} to -?[01]\.[0-9]{3}\), observed agreement 0.429" out; ok $? "binary kappa as worked by hand, with its interval" "$(grep kappa out)"
grep -q "warning: only 7 pairs compared: below 30 pairs a kappa and its interval say little" err; ok $? "seven pairs: a warning that kappa says little" "$(cat err)"
grep -q "label 1            3         0         0         2" out; ok $? "confusion row for label 1" "$(cat out)"
grep -qE "kappa \(4 levels\): -0.024 \(95% interval -?[01]\.[0-9]{3} to -?[01]\.[0-9]{3}\), observed agreement 0.143" out; ok $? "4-level kappa as worked by hand, with its interval" "$(grep kappa out)"
grep -q "list-form" out; ok $? "a note says list-form labels only mean relevant"
is "$(nulls)" 33 "--against does not write grades into the pool"
stop_fake

# ---- the whole loop: pool, judge, label; labels carry their provenance ----
make_case loop
python3 -c 'import json; json.dump({"mk01": 3, "mk02": 1, "mk03": 0}, open("grades.json", "w"))'
start_fake --judge-grades grades.json --judge-grade 0
judge >out 2>err
"$evalset" label demo --from pool.yaml >out 2>err
is "$?" 0 "label merges the judged pool"
grep -q "2 new relevant, 33 new irrelevant" out; ok $? "grade >= 1 relevant, 0 irrelevant" "$(cat out)"
python3 - <<'EOF' > got
import re
s = open("sets/demo/set.yaml").read()
q1 = s.split("- id: q-0001")[1].split("- id: q-0002")[0]
print("c-01: 3" in q1, "c-02: 1" in q1, "c-00: 1" in q1, "c-01: llm:fake-1" in q1)
EOF
is "$(cat got)" "True True True True" "grades, the old label and the provenance in the set"
"$evalset" check demo --corpus chunks.jsonl >out 2>&1
! grep -q "^error" out; ok $? "the labelled set checks without errors"
stop_fake

# ---- shards: 4 processes merged give the worksheet one process gives ----
make_case one
start_fake
judge >out 2>err
is "$?" 0 "one process grades the whole pool"
stop_fake
make_case four
cp pool.yaml pool.orig.yaml
start_fake
pids=
for i in 1 2 3 4; do
	judge --shard $i/4 -o part-$i.yaml >out-$i 2>err-$i &
	pids="$pids $!"
done
rc=0; for p in $pids; do wait $p || rc=$?; done
is "$rc" 0 "4 shard processes at once succeed"
[ "$rc" = 0 ] || for i in 1 2 3 4; do sed "s/^/# shard $i: /" err-$i | head -20; done
is "$(stat_py 'd["requests"]')" 35 "the shards ask each pair once between them"
is "$(stat_py 'max(d["keys"].values())')" 1 "no pair is asked by two shards"
cmp -s pool.yaml pool.orig.yaml; ok $? "a shard leaves the pool itself alone"
per=$(for i in 1 2 3 4; do grep -c "grade: [0-3]" part-$i.yaml; done | tr '\n' ' ')
is "$(echo $per | tr ' ' '+' | bc)" 35 "the shards' grades add up to the pool ($per)"
! echo " $per " | grep -q " 0 "; ok $? "every shard got pairs ($per)"
"$evalset" judge pool.yaml --merge part-1.yaml part-2.yaml part-3.yaml part-4.yaml >out 2>err
is "$?" 0 "merge succeeds"
grep -q "35 grades taken" out; ok $? "merge counts the grades" "$(cat out)"
cmp pool.yaml "$root/one/pool.yaml" >/dev/null; ok $? "merged worksheet is byte-identical to one process's"
"$evalset" judge pool.yaml --merge part-1.yaml part-2.yaml part-3.yaml part-4.yaml >out 2>err
is "$?" 0 "merging again is harmless"
grep -q "0 grades taken, 35 already there" out; ok $? "and takes nothing twice" "$(cat out)"
cmp pool.yaml "$root/one/pool.yaml" >/dev/null; ok $? "the worksheet is unchanged"
# the same shard rerun is answered from its journal; unsharded after shards too
before=$(stat_py 'd["requests"]')
"$evalset" judge pool.orig.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --shard 2/4 -o again.yaml >out 2>err
cmp -s again.yaml part-2.yaml; ok $? "a shard rerun writes the same worksheet"
is "$(stat_py 'd["requests"]')" "$before" "from its journal"
cp pool.orig.yaml fresh.yaml
"$evalset" judge fresh.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" >out 2>err
is "$(stat_py 'd["requests"]')" 35 "an unsharded run after shards reads their journals: nothing asked"
cmp -s fresh.yaml "$root/one/pool.yaml"; ok $? "and grades the same"
# overlapping shards that disagree, and a worksheet of another pool, are refused
sed 's/grade: \([0-3]\)$/grade: 9X\1/' part-1.yaml | python3 -c '
import sys,re; s=sys.stdin.read(); print(re.sub(r"grade: 9X(\d)", lambda m: "grade: %d" % ((int(m.group(1))+1)%4), s), end="")' > bad-1.yaml
cp pool.orig.yaml m.yaml
"$evalset" judge m.yaml --merge part-1.yaml bad-1.yaml >out 2>err
is "$?" 2 "shards that grade a pair differently are refused"
grep -q "bad-1.yaml:[0-9]*:[0-9]*: .*the shards overlap" err; ok $? "FILE:LINE:COL names the overlap" "$(cat err)"
cmp -s m.yaml pool.orig.yaml; ok $? "nothing written on a refused merge"
sed 's/id: q-0001/id: q-0099/' part-1.yaml > alien.yaml
"$evalset" judge m.yaml --merge alien.yaml >out 2>err
is "$?" 2 "a worksheet with a question the pool lacks is refused"
grep -q "alien.yaml:[0-9]*:[0-9]*: question 'q-0099' is not in the pool" err; ok $? "with FILE:LINE:COL" "$(cat err)"
judge --shard 1/4 >out 2>err
is "$?" 2 "--shard without -o is refused"
judge --shard 5/4 -o x.yaml >out 2>err
is "$?" 2 "--shard 5/4 is refused"
stop_fake

# ---- auth failure: exit 3, key never shown ----
make_case auth
start_fake --expect-key right-key
judge >out 2>err
is "$?" 3 "401 exits 3"
! grep -rq "SENTINEL" out err pool.yaml sets/; ok $? "key appears in no output, pool or journal"
is "$(nulls)" 35 "nothing graded"
stop_fake

# ---- on a terminal: a line with done/total, the rate and the time left ----
make_case tty
start_fake --latency 300
cat > "$root/jt.sh" <<EOF
exec "$evalset" judge pool.yaml --model fake-1 --base-url "$BASE" --prompt-dir "$src/prompts" --concurrency 2 "\$@"
EOF
script -qec "bash $root/jt.sh" /dev/null > tty.raw 2>&1
is "$?" 0 "judge completes on a terminal"
grep -aqE 'judge: [0-9]+/35 pairs, [0-9.]+/s, ETA [0-9]+s, 0 retries, 0 failed' tty.raw
ok $? "the line gives done/total, the rate and the time left" "$(tr '\r' '\n' < tty.raw | grep -a 'judge: ' | head -2)"
stop_fake

echo "1..$n"
[ "$failed" = 0 ]
