#!/usr/bin/env python3
"""Turn a XQuAD (SQuAD v1.1) JSON file into an evalset corpus and set.

usage: xquad-set.py XQUAD.json[.gz] OUTDIR [--lang CODE] [--paragraphs N]

Writes OUTDIR/corpus.jsonl (one chunk per paragraph, ids p-0001... in file
order, the article title as "doc") and OUTDIR/set.yaml (one question per
XQuAD question, id "q-" + the XQuAD id, which is the same in every
language; its paragraph is its one relevant chunk). CODE defaults to the
language in the file name (xquad.de.json -> de) and is recorded as the
language of the set and of the corpus. --paragraphs N keeps the first N
paragraphs (and their questions) only. Output is deterministic.
"""
import gzip
import hashlib
import json
import os
import re
import sys


def yaml_str(s):
    # a double-quoted YAML scalar: JSON's escaping is valid YAML
    return json.dumps(s, ensure_ascii=False)


def main(argv):
    args = argv[1:]
    lang = None
    limit = None
    while len(args) > 2:
        if args[-2] == "--lang":
            lang = args[-1]
        elif args[-2] == "--paragraphs":
            limit = int(args[-1])
        else:
            break
        args = args[:-2]
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    src, out = args
    if lang is None:
        m = re.search(r"xquad\.([a-z]{2,3})\.json(\.gz)?$", os.path.basename(src))
        if not m:
            sys.stderr.write("cannot tell the language of '%s': give --lang\n" % src)
            return 2
        lang = m.group(1)
    opener = gzip.open if src.endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8-sig") as f:
        data = json.load(f)
    chunks, questions = [], []
    for art in data["data"]:
        for para in art["paragraphs"]:
            if limit is not None and len(chunks) >= limit:
                break
            cid = "p-%04d" % (len(chunks) + 1)
            text = para["context"].lstrip("\ufeff")
            chunks.append({"id": cid, "text": text, "doc": art.get("title", "")})
            for qa in para["qas"]:
                questions.append(("q-" + qa["id"], qa["question"].strip(), cid))
    os.makedirs(out, exist_ok=True)
    lines = sorted("%s\t%s\n" % (c["id"], hashlib.sha256(c["text"].encode()).hexdigest())
                   for c in chunks)
    fingerprint = "sha256:" + hashlib.sha256("".join(lines).encode()).hexdigest()
    with open(os.path.join(out, "corpus.jsonl"), "w", encoding="utf-8") as f:
        for c in chunks:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    with open(os.path.join(out, "set.yaml"), "w", encoding="utf-8") as f:
        f.write("evalset: 1\n")
        f.write("name: xquad-%s\n" % lang)
        f.write("description: XQuAD (%s), one question per XQuAD question, its paragraph relevant\n" % lang)
        f.write("language: %s\n" % lang)
        f.write("corpus:\n  path: corpus.jsonl\n  fingerprint: %s\n  chunks: %d\n  language: %s\n"
                % (fingerprint, len(chunks), lang))
        f.write("questions:\n")
        for qid, text, cid in questions:
            f.write("  - id: %s\n    text: %s\n    origin: hand\n    relevant: [%s]\n"
                    % (qid, yaml_str(text), cid))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
