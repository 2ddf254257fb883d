#!/usr/bin/env bash
# End-to-end tests of `evalset generate` against tests/fakes/fake_llm.py,
# printing TAP: which questions are kept and what they record: the corpus's
# language, questions that refer to their source, difficulty, the critique
# and verification passes (and their resume), personas, seeds and style
# examples, cross-document multi-hop, evidence quotes (t-generate.sh: the
# requests and the job). Each case starts its own fake server and a scratch
# directory.
#
# usage: t-generate-quality.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/gen-lib.sh"

# ---- a German corpus: prompts ask for German, a reply in English is dropped ----
w="$root/german"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
python3 - <<'EOF'
import json
words = ["Rechnung", "Konto", "Passwort", "Drucker", "Server", "Lizenz"]
with open("chunks.jsonl", "w") as f:
    for i, word in enumerate(words):
        extra = " WRITE-IN-ENGLISH" if i == 5 else ""
        f.write(json.dumps({"id": "c-%02d" % i, "doc": "d%d" % i,
                            "text": "Die %s wird mit der Option Verwaltung%d und dem Schalter Konsole%d "
                                    "eingestellt, wenn sie nicht mehr funktioniert%s." % (word, i, i, extra)},
                           ensure_ascii=False) + "\n")
EOF
"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
start_fake
gen --kinds factoid --batch-out batch.jsonl >out 2>err
[ "$(grep -c 'Language of the questions: German' batch.jsonl)" = 6 ] && grep -q "answer in German" batch.jsonl
ok $? "the prompts ask for the corpus's language (German, detected)" "$(head -c 600 batch.jsonl)"
gen --kinds factoid >out 2>err
is "$?" 0 "generate on a German corpus succeeds"
grep -q "dropped: 0 empty, 0 too long, 1 in another language" out
ok $? "the reply in English is dropped and counted" "$(cat out err)"
is "$(count_q)" 5 "the five German questions are kept"
grep -q "Welche\|Wie kann\|Warum\|Wo wird" sets/demo/set.yaml && ! grep -q "Which\|How can\|Why would\|Where do" sets/demo/set.yaml
ok $? "the kept questions are the German ones"
gen --kinds paraphrase --question-language en >out 2>err
is "$?" 0 "a cross-lingual run (--question-language en) succeeds"
grep -q "dropped: 0 empty, 0 too long, 0 in another language" out
ok $? "English questions about German chunks are kept" "$(cat out err)"
is "$(grep -c '^  language: en' sets/demo/set.yaml)" 6 "and each records its language"
stop_fake

# ---- questions that refer to their source, in several languages, are dropped and counted ----
w="$root/selfref"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
python3 - <<'EOF'
import json
chunks = [
    ("en-1", "The proxy listens on port 8080 by default and forwards every request to the upstream server."),
    ("en-2", "When the proxy cannot reach the upstream server it retries three times before giving up."),
    ("en-3", "The access log of the proxy records the client address and the status of each request."),
    ("de-1", "Die Rechnung wird am Monatsende erstellt und an die Adresse des Kontos geschickt, wenn sie fertig ist."),
    ("de-2", "Das Konto kann jederzeit gekündigt werden, und die Daten werden nach dreißig Tagen gelöscht."),
    ("fr-1", "Le serveur mandataire écoute sur le port 8080 et transmet chaque requête au serveur principal."),
    ("ja-1", "プロキシは既定でポート8080で待ち受け、すべての要求を上流のサーバーに転送します。"),
    ("ru-1", "Прокси-сервер по умолчанию слушает порт 8080 и передаёт все запросы на основной сервер."),
    ("es-1", "El proxy escucha en el puerto 8080 y reenvía cada solicitud al servidor principal."),
]
script = {
    "port 8080 by default": ["According to the passage, which port does the proxy use?"],
    "retries three times": ["Title: Upstream errors - how many retries?"],
    "access log": ["Does the access log record the client address?"],
    "Monatsende": ["Wann wird laut dem Text die Rechnung erstellt?"],
    "gekündigt": ["Wann werden die Daten nach einer Kündigung gelöscht?"],
    "mandataire": ["Selon le texte, sur quel port écoute le serveur ?"],
    "プロキシ": ["この文章によると、プロキシのポートは何番ですか？"],
    "Прокси": ["Согласно тексту, какой порт слушает прокси?"],
    "reenvía": ["¿En qué puerto escucha el proxy?"],
}
with open("chunks.jsonl", "w") as f:
    for cid, text in chunks:
        f.write(json.dumps({"id": cid, "doc": cid, "text": text}, ensure_ascii=False) + "\n")
json.dump(script, open("script.json", "w"), ensure_ascii=False)
EOF
"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
start_fake --questions script.json
gen --kinds factoid --max-copied 2 >out 2>err
is "$?" 0 "generate with source-referring replies succeeds" "$(cat err)"
grep -q "9 proposed, 3 kept" out; ok $? "three of nine questions kept" "$(cat out)"
grep -q "6 referring to the source" out; ok $? "six source references (en x2, de, fr, ja, ru) dropped and counted" "$(cat out)"
grep -q "0 in another language" out; ok $? "each reply was in its chunk's language" "$(cat out)"
for q in "access log record" "Daten nach einer" "qué puerto"; do
	grep -q "$q" sets/demo/set.yaml; ok $? "kept: $q"
done
! grep -qi "passage\|Title:\|laut dem Text\|Selon le texte\|この文章\|Согласно" sets/demo/set.yaml; ok $? "no kept question refers to its source"
stop_fake

# ---- difficulty: the BM25 rank of each question's chunk, the bands, --difficulty ----
make_case difficulty
start_fake
gen --kinds factoid,paraphrase,multi-hop >out 2>err
is "$?" 0 "generate records difficulty"
"$evalset" run demo --corpus chunks.jsonl -k 100 -o run.jsonl 2>err
python3 - <<'EOF' >check.txt
import json, re
runs = {}
for line in open("run.jsonl"):
    r = json.loads(line)
    if "qid" in r:
        runs[r["qid"]] = [h["id"] if isinstance(h, dict) else h for h in r["results"]]
text = open("sets/demo/set.yaml").read()
bad, n, bands = 0, 0, {"easy": 0, "medium": 0, "hard": 0}
for block in text.split("\n- id: ")[1:]:
    qid = block.split("\n")[0]
    rel = re.search(r"relevant: \[([^\]]*)\]", block).group(1).split(", ")
    m = re.search(r"bm25_rank: (\d+)", block)
    ranks = [runs[qid].index(c) + 1 if c in runs[qid] else 0 for c in rel]
    want = 0 if 0 in ranks else max(ranks)
    got = int(m.group(1)) if m else 0
    band = re.search(r"difficulty: (\w+)", block).group(1)
    wantband = "easy" if want == 1 else "medium" if 2 <= want <= 10 else "hard"
    bands[band] += 1
    n += 1
    if got != want or band != wantband:
        bad += 1
print(n, bad, bands["easy"], bands["medium"], bands["hard"])
EOF
read -r nq bad easy medium hard < check.txt
is "$bad" 0 "every bm25_rank and band matches 'evalset run' on the same question ($nq questions)"
grep -q "difficulty of kept answerable questions (BM25 rank of their chunk): $easy easy (rank 1), $medium medium (2-10), $hard hard (beyond 10)" out
ok $? "the summary shows the easy/medium/hard mix ($easy/$medium/$hard)" "$(grep difficulty out)"
ok $([ "$hard" -gt 0 ] && [ "$easy" -gt 0 ] && echo 0 || echo 1) "the case has both easy and hard questions"
make_case difficulty-hard
gen --kinds factoid,paraphrase,multi-hop --difficulty hard >out 2>err
is "$?" 0 "generate --difficulty hard"
is "$(count_q)" "$hard" "--difficulty hard keeps exactly the hard questions"
is "$(grep -c '^    difficulty: hard' sets/demo/set.yaml)" "$hard" "and every one is hard"
grep -q "dropped: $((easy + medium)) outside --difficulty" out; ok $? "the others are counted" "$(grep outside out)"
gen --kinds factoid --difficulty extreme >out 2>err
is "$?" 2 "an unknown band is bad input"
stop_fake

# a small product corpus with scripted questions, for the passes after generation
make_proxy() {
	w="$root/$1"; rm -rf "$w"; mkdir -p "$w"; cd "$w" || exit 1
	python3 - <<'EOF'
import json
chunks = [
    ("port", "The proxy listens on port 8080 by default; set listen_port in proxy.toml to change it."),
    ("retry", "When the upstream server fails, the proxy retries the request three times with a backoff of two seconds."),
    ("log", "The access log records the client address, the method, the path and the status of every request."),
    ("tls", "TLS certificates are read from the certs directory at start and reloaded when the files change."),
    ("auth", "Basic authentication is enabled with the auth section; passwords are stored as bcrypt hashes."),
    ("cache", "Responses with a Cache-Control max-age are cached in memory up to the cache_size limit of 256 MB."),
    ("limit", "Each client may send at most 100 requests per second; the rate limit answers 429 beyond that."),
    ("health", "The health endpoint /healthz answers 200 while the proxy can reach at least one upstream server."),
]
script = {
    "port 8080": ["How do I change the port the proxy listens on?"],
    "three times": ["How many times does the proxy retry a failed upstream request?"],
    "access log": ["What is logged for each request?"],
    "certs directory": ["Which of the following statements about certificate reloading is true?"],
    "bcrypt": ["How is it stored?"],
    "max-age": ["What is the proxy?"],
    "100 requests": ["What happens when a client sends too many requests per second?"],
    "/healthz": ["When does the health check endpoint answer 200?"],
}
critique = {
    "Which of the following": {"realism": 1},
    "How is it stored": {"clarity": 2, "answerability": 2},
    "What is the proxy": {"specificity": 1},
}
with open("chunks.jsonl", "w") as f:
    for cid, text in chunks:
        f.write(json.dumps({"id": cid, "doc": cid, "title": "Proxy guide", "text": text}) + "\n")
json.dump(script, open("script.json", "w"))
json.dump(critique, open("critique.json", "w"))
# unanswerable questions, two of which the corpus does answer
json.dump({
    "port 8080": ["Can the proxy listen on a Unix socket?"],
    "three times": ["What is the maximum number of retries of a failed upstream request?"],
    "access log": ["Can the access log be written as JSON?"],
    "certs directory": ["Does the proxy support OCSP stapling?"],
    "bcrypt": ["Can users sign in with SAML?"],
    "max-age": ["How large can the in-memory response cache grow?"],
    "100 requests": ["Can the rate limit be set per API key?"],
    "/healthz": ["Is there a metrics endpoint for Prometheus?"],
}, open("unanswerable.json", "w"))
json.dump({"maximum number of retries": "retries the request three times",
           "in-memory response cache grow": "cache_size limit"}, open("answers.json", "w"))
EOF
	"$evalset" init demo --corpus chunks.jsonl >/dev/null || exit 1
}

# ---- critique: weak questions dropped per reason, scores kept in provenance ----
make_proxy critique
start_fake --questions script.json --critique critique.json
genq --kinds factoid --max-copied 2 >out 2>err
is "$?" 0 "generate with the critique pass" "$(cat err)"
is "$(count_q)" 5 "three weak questions of eight dropped"
grep -q "critique: 8 questions, 0 rated before, 8 rated now, 0 unusable, 0 failed, 0 not sent; 8 rated, 3 dropped (1 clarity, 1 realism, 1 answerability, 1 specificity under 3)" out
ok $? "the summary counts the drops per criterion" "$(grep critique: out)"
grep -q "realism       1: 1  2: 0  3: 0  4: 7  5: 0  mean 3.62" out; ok $? "the summary shows the score distribution" "$(grep realism out)"
! grep -q "Which of the following\|How is it stored\|What is the proxy?" sets/demo/set.yaml; ok $? "the weak questions are gone"
is "$(grep -c '^      realism: 4' sets/demo/set.yaml)" 5 "every kept question carries provenance.critique"
grep -q "^    critique_by: critique@sha256:" sets/demo/set.yaml; ok $? "and the critique prompt's identity"
before=$(stat_py 'd["requests"]')
genq --kinds factoid --max-copied 2 >out 2>err
is "$(stat_py 'd["requests"]')" "$before" "a rerun asks nothing again"
# a new seed: new generation requests, the same replies; the three dropped
# questions come back from the generator, and the journal drops them again
genq --kinds factoid --max-copied 2 --seed 2 >out 2>err
is "$(stat_py 'd["requests"]')" "$((before + 8))" "a new seed asks the generator only"
grep -q "critique: 3 questions, 3 rated before, 0 rated now.* 3 dropped" out; ok $? "questions rated before are not rated again" "$(grep critique: out)"
is "$(count_q)" 5 "and stay out of the set"
stop_fake
make_proxy critique-off
start_fake --questions script.json --critique critique.json
genq --kinds factoid --max-copied 2 --no-critique >out 2>err
is "$(count_q)" 8 "--no-critique keeps every question"
is "$(stat_py 'd["requests"]')" 8 "and asks only the generation requests"
stop_fake
make_proxy critique-model
start_fake --questions script.json
genq --kinds factoid --max-copied 2 --critique-model judge-2 >out 2>err
is "$?" 0 "--critique-model"
is "$(grep -c '"model":"judge-2"' sets/demo/.evalset/critique.jsonl)" 8 "the critique is asked of the other model"
stop_fake

# ---- verified unanswerables: the ones the corpus answers are dropped, near misses recorded ----
make_proxy verify
start_fake --questions unanswerable.json --answers answers.json
genq --kinds unanswerable >out 2>err
is "$?" 0 "generate unanswerable questions with verification" "$(cat err)"
is "$(count_q)" 6 "two of eight unanswerables are answered by the corpus and dropped"
# "Can users sign in with SAML?" shares no term with the corpus: kept without asking
grep -q "verification: 8 questions, 0 checked before, 7 checked now.*dropped 2 unanswerable the corpus answers" out
ok $? "the summary counts them" "$(grep verification: out)"
! grep -q "maximum number of retries\|in-memory response cache" sets/demo/set.yaml; ok $? "the answered ones are gone"
is "$(grep -c '^      near_miss: ' sets/demo/set.yaml)" 5 "every kept unanswerable some chunk matched records its near miss"
is "$(grep -c '^      retriever: bm25' sets/demo/set.yaml)" 6 "checked against the BM25 chunks"
grep -q '^      checked: 0' sets/demo/set.yaml; ok $? "a question no chunk matches is kept without asking"
stop_fake
make_proxy verify-cmd
cat > retr.py <<'EOF'
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    # a retriever that always answers the same two chunks
    print(json.dumps({"qid": r["qid"], "results": [{"id": "retry", "score": 2}, {"id": "port", "score": 1}]}), flush=True)
EOF
start_fake --questions unanswerable.json --answers answers.json
genq --kinds unanswerable --retriever-cmd "python3 retr.py" >out 2>err
is "$?" 0 "verification with --retriever-cmd" "$(cat err)"
is "$(count_q)" 7 "the command's chunks decide: only the retry question is answered by them"
is "$(grep -c '^      checked: 2' sets/demo/set.yaml)" 7 "each checked against the command's two chunks"
stop_fake

# ---- personas, seed questions and style examples steer each chunk's request ----
make_proxy steer
batch() { "$evalset" generate demo --corpus chunks.jsonl --model m --base-url http://127.0.0.1:9/v1 \
	--prompt-dir "$src/prompts" --kinds factoid --batch-out "$@" >/dev/null 2>err; }
batch plain.jsonl
batch personas.jsonl --persona "a sysadmin in a hurry" --persona "a developer new to proxies"
is "$?" 0 "--persona with --batch-out"
python3 - <<'EOF' >check.txt
import json
lines = [json.loads(l) for l in open("personas.jsonl")]
users = [l["body"]["messages"][-1]["content"] for l in lines]
one = sum(1 for u in users if u.count("Ask as this user would:") == 1)
a = sum("a sysadmin in a hurry" in u for u in users)
b = sum("a developer new to proxies" in u for u in users)
plain = {json.loads(l)["custom_id"] for l in open("plain.jsonl")}
print(one, a, b, a + b, len(plain & {l["custom_id"] for l in lines}))
EOF
read -r one a b both same < check.txt
is "$one" 8 "every request names one persona"
ok $([ "$a" -ge 1 ] && [ "$b" -ge 1 ] && [ "$both" = 8 ] && echo 0 || echo 1) "both personas are used, spread over the chunks ($a and $b)"
is "$same" 0 "a persona makes a new request (journal key)"
batch personas2.jsonl --persona "a sysadmin in a hurry" --persona "a developer new to proxies"
cmp -s personas.jsonl personas2.jsonl; ok $? "the spread is deterministic"
printf 'how do I rotate TLS certificates without downtime\n# a comment\n\nwhy is my bcrypt login slow\n' > seeds.txt
batch seeds.jsonl --seed-questions seeds.txt
python3 - <<'EOF' >check.txt
import json
for l in open("seeds.jsonl"):
    r = json.loads(l); u = r["body"]["messages"][-1]["content"]
    c = u.split("<chunk>")[1]
    print(("tls" if "certs directory" in c else "auth" if "bcrypt" in c else "other"),
          int("rotate TLS certificates" in u), int("bcrypt login" in u))
EOF
is "$(grep -c '^tls 1 0' check.txt)" 1 "the TLS chunk gets the TLS seed question"
is "$(grep -c '^auth 0 1' check.txt)" 1 "the auth chunk gets the bcrypt one"
is "$(grep -c '^other 0 0' check.txt)" 6 "chunks sharing no term with a seed get none"
printf 'nothing here\n' > /dev/null
: > empty.txt
batch x.jsonl --seed-questions empty.txt
is "$?" 2 "an empty seed file is bad input"
grep -q "empty.txt' holds no seed questions" err; ok $? "and says so" "$(cat err)"
for q in "proxy port??" "how to turn on basic auth" "cache size max" "why 429 rate limit"; do
	"$evalset" add demo --text "$q" --unanswerable --origin mined >/dev/null
done
batch style.jsonl --style-from origin=mined
is "$?" 0 "--style-from origin=mined"
python3 - <<'EOF' >check.txt
import json
n = 0
for l in open("style.jsonl"):
    u = json.loads(l)["body"]["messages"][-1]["content"]
    part = u.split("Real queries of this product's users")[1] if "Real queries of this product's users" in u else ""
    n += part.count("\n- ") == 3
print(n)
EOF
is "$(cat check.txt)" 8 "every request shows three real queries as examples"
grep -q 'cache size max' style.jsonl; ok $? "the examples are the mined questions"
batch y.jsonl --style-from origin=nothing
is "$?" 2 "a filter no question matches is bad input"
batch y.jsonl --style-from colour=blue
is "$?" 2 "an unknown filter key is bad input"
start_fake --questions script.json
genq --kinds factoid --max-copied 2 --persona "a sysadmin in a hurry" --style-from origin=mined >out 2>err
is "$?" 0 "a live run with a persona and style examples" "$(cat err)"
is "$(grep -c '^    persona: a sysadmin in a hurry' sets/demo/set.yaml)" 8 "each question records its persona"
grep -q "^realism gap: synthetic questions against 4 real queries (--style-from origin=mined)" out
ok $? "the summary shows the realism gap" "$(cat out)"
grep -q "^  questions  *4  *0  *8$" out; ok $? "real, synthetic before and new side by side" "$(grep '^  questions' out)"
grep -q "^  length vs real .*KS D" out; ok $? "with the two-sample statistic" "$(grep 'vs real' out)"
stop_fake

# ---- cross-document multi-hop: pairs sharing rare terms; one chunk answering alone is dropped ----
make_proxy multihop
python3 - <<'EOF'
import json
json.dump({
    "port 8080": ["Which port does the proxy listen on when a client hits the rate limit?"],
    "three times": ["How long does the proxy wait between upstream retries while the health check fails?"],
    "access log": ["Does the access log show requests rejected by the rate limit?"],
    "certs directory": ["Are TLS certificates reloaded when basic authentication changes?"],
    "bcrypt": ["Which hash protects passwords of clients behind the cache?"],
    "max-age": ["How big can the cache grow for responses to authenticated clients?"],
    "100 requests": ["What status does the proxy answer beyond 100 requests per second from one address?"],
    "/healthz": ["When does /healthz answer 200 during upstream retries?"],
}, open("mh.json", "w"))
# two of them are answered by one of their chunks alone
json.dump({"Which port does the proxy listen on": "port 8080",
           "How big can the cache grow": "cache_size limit of 256 MB"}, open("mh-answers.json", "w"))
EOF
start_fake --questions mh.json --answers mh-answers.json
genq --kinds multi-hop --max-copied 2 >out 2>err
is "$?" 0 "generate cross-document multi-hop questions" "$(cat err)"
planned=$(sed -n 's/.*requests: \([0-9]*\) planned.*/\1/p' out)
ok $([ "${planned:-0}" -ge 6 ] && echo 0 || echo 1) "most chunks find a partner in another document ($planned of 8)"
grep -q "dropped 0 unanswerable the corpus answers, 2 multi-hop one chunk answers" out; ok $? "the two answered by one chunk are dropped and counted" "$(grep verification: out)"
is "$(count_q)" "$((planned - 2))" "the others are kept"
! grep -q "Which port does the proxy listen on\|How big can the cache grow" sets/demo/set.yaml; ok $? "the dropped ones are gone"
python3 - <<'EOF' >check.txt
import re
text = open("sets/demo/set.yaml").read()
bad = 0
blocks = text.split("\n- id: ")[1:]
for b in blocks:
    rel = re.search(r"relevant: \[([^\]]*)\]", b).group(1).split(", ")
    bad += len(rel) != 2 or rel[0] == rel[1] or "checked: 2" not in b or "neighbour: " not in b
print(len(blocks), bad)
EOF
read -r nmh bad < check.txt
is "$bad" 0 "each kept multi-hop question labels both chunks (two documents) and was checked against both"
stop_fake

# ---- critique and verification: kill -9 mid-pass, resume without asking again ----
for spec in critique:factoid verify:unanswerable verify:multi-hop; do
	pass=${spec%%:*} kinds=${spec#*:}
	make_case "kill-$pass-$kinds"
	start_fake --latency 150
	genq_bg --kinds $kinds --concurrency 4 --max-copied 2 >out 2>err
	pid=$!
	wait_records sets/demo/.evalset/$pass.jsonl 5 100
	kill -9 $pid; wait $pid 2>/dev/null
	journaled=$(grep -c '"status":"ok"' sets/demo/.evalset/$pass.jsonl)
	before=$(stat_py 'd["requests"]')
	ok $([ "$journaled" -ge 5 ] && [ "$journaled" -lt 24 ] && echo 0 || echo 1) "$kinds $pass: killed mid-pass ($journaled of 24 journaled)"
	genq --kinds $kinds --concurrency 4 --max-copied 2 >out 2>err
	is "$?" 0 "$pass: resume succeeds" "$(cat err)"
	after=$(stat_py 'd["requests"]')
	is "$((after - before))" "$((24 - journaled))" "$pass: resume sends exactly the unjournaled requests"
	is "$(grep -o '"key":"[^"]*"' sets/demo/.evalset/$pass.jsonl | sort | uniq -d | wc -l)" 0 "$pass: no request journaled twice"
	if [ $pass = critique ]; then
		is "$(grep -c '^    critique:' sets/demo/set.yaml)" 24 "critique: every question rated after the resume"
	else
		is "$(grep -c '^    verification:' sets/demo/set.yaml)" 24 "verify: every question verified after the resume"
	fi
	is "$(count_q)" 24 "$pass: nothing lost, nothing twice"
	stop_fake
done

# ---- evidence: each question records the quote it is grounded in and its span ----
w="$root/evidence"; rm -rf "$w"; mkdir -p "$w/docs"; cd "$w" || exit 1
python3 - <<'EOF'
import random
random.seed(7)
vocab = ["w%03d" % i for i in range(400)]
for d in range(3):
    with open("docs/page%d.md" % d, "w") as f:
        f.write("# Page %d\n\n" % d)
        for p in range(4):
            sents = [" ".join(random.sample(vocab, 8)).capitalize() + "." for _ in range(3)]
            if d == 2 and p == 3:
                sents[0] = "QUOTE-ELSEWHERE " + sents[0]
            f.write(" ".join(sents) + "\n\n")
EOF
"$evalset" chunk --by paragraphs -o chunks.jsonl docs >/dev/null
"$evalset" init demo --corpus chunks.jsonl >/dev/null
start_fake
gen --kinds factoid,unanswerable >out 2>err
is "$?" 0 "generate on a corpus with spans succeeds"
for id in $(sed -n 's/^- id: //p' sets/demo/set.yaml); do "$evalset" show demo "$id" --format json; echo; done > questions.jsonl
python3 - questions.jsonl chunks.jsonl docs > ev.out <<'EOF'
import json, sys
chunks = {c["id"]: c for c in map(json.loads, open(sys.argv[2]))}
quoted = spanned = bad = unanswerable_ev = dropped = 0
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    q = json.loads(line)
    ev = q.get("evidence") or []
    if q.get("answerable") is False:
        unanswerable_ev += len(ev)
        continue
    if len(ev) != 1:
        bad += 1
        continue
    e = ev[0]
    c = chunks[e["chunk"]]
    doc = open(sys.argv[3] + "/" + e["doc"], encoding="utf-8").read()
    if "quote" in e:
        # the quote stands in the document at its span, inside its chunk
        quoted += doc[e["start"]:e["end"]] == e["quote"] and c["start"] <= e["start"] and e["end"] <= c["end"]
    else:
        spanned += (e["start"], e["end"]) == (c["start"], c["end"])
        dropped += q.get("provenance", {}).get("quote") == "not in the chunk: dropped"
print(quoted, spanned, dropped, bad, unanswerable_ev)
EOF
read quoted spanned dropped bad unev < ev.out
ok $([ "${quoted:-0}" -ge 10 ] && echo 0 || echo 1) "answerable questions record a quote found verbatim at its span in the document ($quoted)"
ok $([ "${spanned:-0}" -ge 1 ] && [ "$spanned" = "$dropped" ] && echo 0 || echo 1) "a quote the chunk does not hold is dropped: the chunk's span is the evidence, provenance says so ($spanned, $dropped)"
is "$bad $unev" "0 0" "every answerable question has one evidence entry, unanswerable ones none"
"$evalset" check demo >/dev/null 2>&1
ok $([ $? -le 1 ] && echo 0 || echo 1) "the set with evidence checks"
# the labels survive a re-chunking: remap carries them through their quotes
"$evalset" chunk --by sentences --size 1 --overlap 0 -o sent.jsonl docs >/dev/null
"$evalset" remap demo --corpus sent.jsonl >remap.out 2>&1
is "$?" 0 "remap to one-sentence chunks succeeds"
grep -Eq "stale +0$" remap.out && grep -Eq "not mappable +0$" remap.out
ok $? "every generated label maps to the new chunking" "$(cat remap.out)"
stop_fake

# ---- the key never reaches any file of any case (sets, journals, outputs, batches) ----
cd "$root" || exit 1
! grep -rq "SENTINEL" "$root"; ok $? "no file written by any case holds the API key"

echo "1..$n"
[ "$failed" -eq 0 ]
