"""Two retriever functions over the demo set's corpus, as a team would write
them: a small BM25 in plain Python, and the same with a bug (it drops the
best result of every other question). Neither is evalset's: they are what
the tests score."""
import json
import math
import os
import re
from collections import Counter

_corpus = os.environ.get("DEMO_CORPUS", "sets/squad-demo/corpus.jsonl")
_word = re.compile(r"\w+")
_stop = set("a an and are as at be by did do does for from how in is it of on or the to was "
            "were what when where which who whom why with".split())


def _tokens(text):
    return [w for w in _word.findall(text.lower()) if w not in _stop]


class ToyBM25:
    def __init__(self, path, k1=0.9, b=0.4):
        self.ids, self.tf, self.len = [], [], []
        with open(path, encoding="utf-8") as f:
            for line in f:
                c = json.loads(line)
                toks = _tokens(c.get("title", "") + " " + c["text"])
                self.ids.append(c["_id"] if "_id" in c else c["id"])
                self.tf.append(Counter(toks))
                self.len.append(len(toks))
        self.k1, self.b = k1, b
        self.avg = sum(self.len) / len(self.len)
        df = Counter(t for tf in self.tf for t in tf)
        n = len(self.ids)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def search(self, text, k):
        scores = Counter()
        for t in _tokens(text):
            idf = self.idf.get(t)
            if idf is None:
                continue
            for i, tf in enumerate(self.tf):
                f = tf.get(t)
                if f:
                    norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avg)
                    scores[i] += idf * f / (f + norm)
        best = sorted(scores.items(), key=lambda x: (-x[1], self.ids[x[0]]))[:k]
        return [(self.ids[i], round(s, 6)) for i, s in best]


_index = None


def _bm25():
    global _index
    if _index is None:
        _index = ToyBM25(_corpus)
    return _index


def toy_bm25(text, k):
    """The team's retriever: BM25 over the corpus."""
    return _bm25().search(text, k)


def broken_bm25(text, k, id):
    """The same after a bad change: every other question loses its best
    results, and one question makes it raise."""
    if id == "q-0002":
        raise RuntimeError("index shard 3 unavailable")
    hits = _bm25().search(text, k + 5)
    return hits[5:] if int(id[2:]) % 2 else hits[:k]
