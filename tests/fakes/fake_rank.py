"""fake_rank: the ranking the fake retrievers answer with (fake_retriever.py
behind --cmd, fake_endpoint.py behind --url), so both rank alike.

ranked(query, k) ranks the ids "c-<word>" of the query's words (lower case,
letters only, first occurrence first), best first, with scores N, N-1, ...
for N distinct words, and keeps the first k.
"""
import re


def ranked(query, k):
    ids = []
    for w in re.findall(r"[a-z]+", query.lower()):
        if "c-" + w not in ids:
            ids.append("c-" + w)
    return [{"id": i, "score": float(len(ids) - n)} for n, i in enumerate(ids)][:k]
