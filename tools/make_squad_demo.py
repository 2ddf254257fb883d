#!/usr/bin/env python3
"""Build the demo set sets/squad-demo from the SQuAD 2.0 dev paragraphs.

usage: python3 tools/make_squad_demo.py [--squad FILE] [--seed N] [--out DIR]

Reads ../shared/data/squad2-dev/dev-v2.0.json (relative to the repository
root) and writes, into sets/squad-demo/:

  docs/         one plain-text document per article, "<article-slug>.txt":
                its paragraphs in order, separated by a blank line (what
                `evalset chunk` cuts into other chunkings).
  corpus.jsonl  one line per paragraph: {"id", "title", "doc", "start",
                "end", "text"}; the id is "<article-slug>-p<NN>" (article
                slug from the SQuAD title, NN the paragraph's index in its
                article), so ids are stable as long as the source file is;
                doc, start and end give the paragraph's place in docs/
                (Unicode characters, end exclusive).
  set.yaml      the working copy (docs/sets.md): answerable SQuAD questions
                (relevant = the paragraph they were written against, with
                the SQuAD answer span as evidence),
                unanswerable ones (is_impossible: answerable false, no label),
                and the hand-written hard cases of tools/squad-demo-hard.yaml.

Sampling is driven by random.Random(seed) alone and the input is read in file
order, so the same source file and seed always give the same set byte for
byte. Python standard library only.
"""

import argparse
import json
import os
import random
import re
import sys
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SQUAD = os.path.join(ROOT, "..", "shared", "data", "squad2-dev", "dev-v2.0.json")
DEFAULT_OUT = os.path.join(ROOT, "sets", "squad-demo")
HARD_FILE = os.path.join(ROOT, "tools", "squad-demo-hard.yaml")

SEED = 20261129
N_ANSWERABLE = 120
N_UNANSWERABLE = 30
NEAR_DUP = 0.8          # Jaccard of content words at which two questions count as one

# SQuAD questions left out after review. SQuAD marks a question unanswerable
# against its own paragraph only; these can be answered from another
# paragraph of the corpus, so they would be wrong labels here.
EXCLUDE = {
    "e808ef76ca17ff35c7cfa3768",  # "universal force after the work of Galileo": gravity, force-p23
    "cf2fbe24c0baee5dd623a7865",  # "What force describes Lorenzo's Law?": a misspelling of Lorentz's law, force-p28
}

# English stop words: function words that say nothing about the topic, used
# for the content-word overlap figure (the provenance key 'overlap').
STOP = set("""
a about above after again against all also am an and any are as at be because
been before being below between both but by can could did do does doing down
during each few for from further had has have having he her here hers herself
him himself his how i if in into is it its itself just me more most my myself
no nor not now of off on once only or other our ours ourselves out over own
same she should so some such than that the their theirs them themselves then
there these they this those through to too under until up very was we were
what when where which while who whom whose why will with would you your yours
yourself yourselves s t did does shall may might must
""".split())


DERIVED = """\
---- sets/squad-demo: what was derived from the source above ----
License: CC BY-SA 4.0 (full text in LICENSE beside this file); the derived
files below are shared under the same license. Attribution: Pranav Rajpurkar,
Robin Jia and Percy Liang, "Know What You Don't Know: Unanswerable Questions
for SQuAD" (ACL 2018); paragraphs from English Wikipedia.
Built by tools/make_squad_demo.py (seed {seed}) from dev-v2.0.json:
  docs/         one document per article, <article-slug>.txt: its paragraphs,
                unchanged, separated by a blank line.
  corpus.jsonl  all {n_chunks} paragraphs, unchanged, one chunk each; id
                "<article-slug>-p<NN>" (NN = paragraph index in its article),
                title = the article title with '_' shown as ' ', doc, start
                and end = the paragraph's place in docs/.
  set.yaml      {n_ans} answerable SQuAD questions (text whitespace-normalised,
                relevant = the paragraph they were written against, evidence =
                the SQuAD answer span in docs/), {n_imp}
                unanswerable ones (is_impossible), and {n_hard} questions written
                for this set (tools/squad-demo-hard.yaml, origin hand); the
                SQuAD question id is kept in each question's provenance.
Changes: questions sampled, ids assigned, labels recast as evalset set YAML.
"""


def slug(title):
    """Return the lowercase ASCII slug of a SQuAD article title."""
    s = unicodedata.normalize("NFKD", title)
    s = s.encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "-", s).strip("-")


def tokens(text):
    """Return the normalised tokens of 'text' (NFKC, case folded, letter/digit runs)."""
    t = unicodedata.normalize("NFKC", text).casefold()
    return re.findall(r"[^\W_]+", t)


def content_words(text):
    return {w for w in tokens(text) if w not in STOP}


def overlap(question, chunk_text):
    """Return the share of the content words of 'question' found in 'chunk_text'."""
    q = content_words(question)
    if not q:
        return 0.0
    c = set(tokens(chunk_text))
    return len(q & c) / len(q)


def near_duplicate(a, b):
    if " ".join(tokens(a)) == " ".join(tokens(b)):
        return True
    wa, wb = content_words(a), content_words(b)
    if not wa or not wb:
        return False
    return len(wa & wb) / len(wa | wb) >= NEAR_DUP


# ---- a small reader for the YAML subset of tools/squad-demo-hard.yaml ----
#
# Top level "questions:" then a list of maps, each key on its own line, values
# plain or quoted scalars, flow lists "[a, b]", and one level of nested map
# (for "relevant:"). Comments and blank lines are ignored. Anything else is an
# error naming the line, so a typo cannot silently drop a question.

def _scalar(s, where):
    s = s.strip()
    if s.startswith('"'):
        try:
            return json.loads(s)
        except ValueError:
            sys.exit(f"{where}: bad double-quoted string")
    if s.startswith("'"):
        if not s.endswith("'") or len(s) < 2:
            sys.exit(f"{where}: bad single-quoted string")
        return s[1:-1].replace("''", "'")
    if s.startswith("["):
        if not s.endswith("]"):
            sys.exit(f"{where}: unterminated flow list")
        inner = s[1:-1].strip()
        return [_scalar(x, where) for x in inner.split(",")] if inner else []
    if re.fullmatch(r"-?[0-9]+", s):
        return int(s)
    return s


def _strip_comment(line):
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def read_hard(path):
    """Return the list of question maps of 'path' (see the subset above)."""
    questions, cur, nested = [], None, None
    with open(path, encoding="utf-8") as fp:
        for n, raw in enumerate(fp, 1):
            where = f"{path}:{n}"
            line = _strip_comment(raw.rstrip("\n"))
            if not line.strip():
                continue
            indent = len(line) - len(line.lstrip(" "))
            body = line.strip()
            if indent == 0:
                if body != "questions:":
                    sys.exit(f"{where}: expected 'questions:'")
                continue
            if body.startswith("- "):
                cur, nested = {}, None
                questions.append(cur)
                body = body[2:]
                indent += 2
            if cur is None:
                sys.exit(f"{where}: key outside a question")
            key, sep, value = body.partition(":")
            if not sep:
                sys.exit(f"{where}: expected 'key: value'")
            key = key.strip()
            if nested is not None and indent > nested[0]:
                nested[1][key] = _scalar(value, where)
                continue
            nested = None
            if value.strip() == "":
                cur[key] = {}
                nested = (indent, cur[key])
            else:
                cur[key] = _scalar(value, where)
    return questions


# ---- YAML output ----

PLAIN_OK = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ,.'()/?&%$+-]*")
RESERVED = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"}


def ystr(s):
    """Return 's' as a YAML scalar: plain when unambiguous, else double-quoted."""
    if (PLAIN_OK.fullmatch(s) and s.lower() not in RESERVED
            and not re.fullmatch(r"[-+]?[0-9][0-9.eE_+-]*", s)
            and not s.endswith(" ") and " #" not in s):
        return s
    return json.dumps(s, ensure_ascii=False)


def yval(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return f"{v:.2f}"
    if isinstance(v, list):
        return "[" + ", ".join(ystr(x) for x in v) + "]"
    return ystr(v)


def emit_question(out, q):
    out.append(f"  - id: {q['id']}")
    out.append(f"    text: {ystr(q['text'])}")
    out.append(f"    origin: {q['origin']}")
    if not q["answerable"]:
        out.append("    answerable: false")
    if q["relevant"]:
        out.append("    relevant:")
        for chunk, grade in q["relevant"].items():
            out.append(f"      {chunk}: {grade}")
    for e in q.get("evidence", []):
        if "evidence:" not in out[-1] and not out[-1].startswith("      - {chunk"):
            out.append("    evidence:")
        out.append("      - {chunk: %s, doc: %s, start: %d, end: %d, quote: %s}"
                   % (e["chunk"], e["doc"], e["start"], e["end"], json.dumps(e["quote"], ensure_ascii=False)))
    if q.get("tags"):
        out.append(f"    tags: {yval(q['tags'])}")
    out.append("    provenance:")
    for k, v in q["provenance"].items():
        out.append(f"      {k}: {yval(v)}")
    if q.get("note"):
        out.append(f"    note: {ystr(q['note'])}")


# ---- the build ----

def load_squad(path):
    with open(path, encoding="utf-8") as fp:
        data = json.load(fp)
    chunks, answerable, impossible, docs = [], [], [], {}
    for article in data["data"]:
        title = article["title"].replace("_", " ")
        s = slug(article["title"])
        doc = f"{s}.txt"
        parts, at = [], 0
        for pi, para in enumerate(article["paragraphs"]):
            cid = f"{s}-p{pi:02d}"
            if parts:
                at += 2  # the blank line between paragraphs
            chunks.append({"id": cid, "title": title, "doc": doc, "start": at,
                           "end": at + len(para["context"]), "text": para["context"]})
            parts.append(para["context"])
            for qa in para["qas"]:
                item = {"squad_id": qa["id"], "text": " ".join(qa["question"].split()),
                        "chunk": cid, "article": title, "context": para["context"]}
                if qa.get("is_impossible"):
                    impossible.append(item)
                else:
                    ans = qa["answers"][0] if qa["answers"] else {"text": "", "answer_start": 0}
                    item["answer"] = ans["text"]
                    a = ans["answer_start"]
                    if ans["text"] and para["context"][a:a + len(ans["text"])] == ans["text"]:
                        item["evidence"] = {"chunk": cid, "doc": doc, "start": at + a,
                                            "end": at + a + len(ans["text"]), "quote": ans["text"]}
                    answerable.append(item)
            at += len(para["context"])
        docs[doc] = "\n\n".join(parts) + "\n"
    return chunks, answerable, impossible, docs


def pick(rng, pool, n, taken, used_chunks, one_per_chunk):
    """Pick 'n' items of 'pool' in a seeded order, round-robin over articles,
    skipping near-duplicates of texts already 'taken' (and, with
    'one_per_chunk', paragraphs already used)."""
    by_article = {}
    for item in pool:
        by_article.setdefault(item["article"], []).append(item)
    articles = sorted(by_article)
    for a in articles:
        rng.shuffle(by_article[a])
    rng.shuffle(articles)
    chosen, cursor = [], {a: 0 for a in articles}
    while len(chosen) < n:
        progressed = False
        for a in articles:
            if len(chosen) >= n:
                break
            items = by_article[a]
            while cursor[a] < len(items):
                item = items[cursor[a]]
                cursor[a] += 1
                if len(item["text"]) < 10 or item["squad_id"] in EXCLUDE:
                    continue
                if one_per_chunk and item["chunk"] in used_chunks:
                    continue
                if any(near_duplicate(item["text"], t) for t in taken):
                    continue
                chosen.append(item)
                taken.append(item["text"])
                used_chunks.add(item["chunk"])
                progressed = True
                break
        if not progressed:
            sys.exit("not enough distinct questions to sample from")
    return chosen


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--squad", default=DEFAULT_SQUAD)
    ap.add_argument("--hard", default=HARD_FILE)
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()

    chunks, answerable, impossible, docs = load_squad(args.squad)
    by_id = {c["id"]: c for c in chunks}
    rng = random.Random(args.seed)
    taken, used = [], set()
    ans = pick(rng, answerable, N_ANSWERABLE, taken, used, True)
    imp = pick(rng, impossible, N_UNANSWERABLE, taken, used, True)
    hard = read_hard(args.hard)

    questions = []
    for item in ans:
        questions.append({
            "text": item["text"], "origin": "synthetic", "answerable": True,
            "relevant": {item["chunk"]: 1}, "tags": ["squad"],
            "provenance": {"source": "squad2-dev", "squad_id": item["squad_id"],
                           "writer": "crowd", "article": item["article"],
                           "chunk": item["chunk"], "answer": item["answer"],
                           "overlap": round(overlap(item["text"], item["context"]), 2)},
            "evidence": [item["evidence"]] if "evidence" in item else [],
        })
    for item in imp:
        questions.append({
            "text": item["text"], "origin": "synthetic", "answerable": False,
            "relevant": {}, "tags": ["squad", "unanswerable"],
            "provenance": {"source": "squad2-dev", "squad_id": item["squad_id"],
                           "writer": "crowd", "article": item["article"],
                           "written_against": item["chunk"]},
        })
    report = []
    for i, h in enumerate(hard, 1):
        where = f"{args.hard}: hard case {i}"
        rel = h.get("relevant")
        if not isinstance(rel, dict) or not rel or "text" not in h:
            sys.exit(f"{where}: needs 'text' and a 'relevant' map")
        for cid, grade in rel.items():
            if cid not in by_id:
                sys.exit(f"{where}: unknown chunk '{cid}'")
            if not isinstance(grade, int) or not 1 <= grade <= 9:
                sys.exit(f"{where}: grade of '{cid}' must be 1..9")
        if any(near_duplicate(h["text"], t) for t in taken):
            sys.exit(f"{where}: near-duplicate of a sampled question")
        taken.append(h["text"])
        # A multi-hop question is measured against its chunks joined (what a
        # retriever must bring together); any other against its best chunk.
        joined = "\n".join(by_id[c]["text"] for c in rel)
        per = [round(overlap(h["text"], by_id[c]["text"]), 2) for c in rel]
        tags = ["hard"] + [t for t in h.get("tags", []) if t != "hard"]
        ov = round(overlap(h["text"], joined), 2) if "multi-hop" in tags else max(per)
        prov = {"source": "squad2-dev", "writer": "hand", "kind": h.get("kind", tags[-1]),
                "article": by_id[next(iter(rel))]["title"], "overlap": ov}
        if h.get("answer"):
            prov["answer"] = h["answer"]
        questions.append({"text": h["text"], "origin": "hand", "answerable": True,
                          "relevant": dict(rel), "tags": tags, "provenance": prov,
                          "note": h.get("note")})
        report.append((ov, per, tags[1] if len(tags) > 1 else "", h["text"]))

    for i, q in enumerate(questions, 1):
        q["id"] = f"q-{i:04d}"

    os.makedirs(os.path.join(args.out, "docs"), exist_ok=True)
    for name, text in docs.items():
        with open(os.path.join(args.out, "docs", name), "w", encoding="utf-8") as fp:
            fp.write(text)
    with open(os.path.join(args.out, "corpus.jsonl"), "w", encoding="utf-8") as fp:
        for c in chunks:
            fp.write(json.dumps(c, ensure_ascii=False) + "\n")

    src = os.path.join(os.path.dirname(args.squad), "SOURCE.txt")
    with open(src, encoding="utf-8") as fp:
        source = fp.read()
    with open(os.path.join(args.out, "SOURCE.txt"), "w", encoding="utf-8") as fp:
        fp.write(source.rstrip("\n") + "\n\n" + DERIVED.format(
            seed=args.seed, n_ans=len(ans), n_imp=len(imp), n_hard=len(hard),
            n_chunks=len(chunks)))

    out = [
        "# Generated by tools/make_squad_demo.py (seed %d): edit the script or" % args.seed,
        "# tools/squad-demo-hard.yaml and rebuild rather than editing by hand.",
        "# Derived from SQuAD 2.0 (CC BY-SA 4.0): see SOURCE.txt and LICENSE.",
        "evalset: 1",
        "name: squad-demo",
        "description: " + ystr(
            "SQuAD 2.0 dev paragraphs as chunks; %d crowd questions (relevant = their "
            "paragraph), %d unanswerable ones, %d hand-written hard cases"
            % (len(ans), len(imp), len(hard))),
        "corpus:",
        "  path: corpus.jsonl",
        "questions:",
    ]
    for q in questions:
        emit_question(out, q)
    with open(os.path.join(args.out, "set.yaml"), "w", encoding="utf-8") as fp:
        fp.write("\n".join(out) + "\n")

    sq = [overlap(q["text"], by_id[q["provenance"]["chunk"]]["text"]) for q in questions[:len(ans)]]
    print(f"wrote {len(chunks)} chunks and {len(questions)} questions "
          f"({len(ans)} answerable, {len(imp)} unanswerable, {len(hard)} hard) to {args.out}")
    print(f"crowd questions: mean content-word overlap {sum(sq) / len(sq):.2f}, "
          f"{sum(1 for x in sq if x < 0.3)} below 0.3")
    print("hard cases: overlap (joined chunks) [per chunk]  kind  text")
    for ov, per, kind, text in report:
        flag = "" if kind != "vocabulary-gap" or ov < 0.3 else "  <-- above 0.3"
        print(f"  {ov:.2f} {per}  {kind}  {text}{flag}")


if __name__ == "__main__":
    main()
