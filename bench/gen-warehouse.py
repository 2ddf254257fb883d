#!/usr/bin/env python3
"""Write one generated search log twice, for bench/warehouse.sh:

  RAW.jsonl  N records, one a line, in time order (what an application logs)
  AGG.csv    the same records aggregated as docs/scale.md's SQL would:
             one row per query, document and signal, with the count, the
             distinct sessions and the first and last times

usage: gen-warehouse.py RAW AGG N [SEED]

The records of one aggregated row are written together and times rise
record by record, so both files meet the queries in the same order and the
two imports must give the same set (bench/warehouse.sh checks it). 50,000
queries with Zipf-like frequencies, 5,000 documents, sessions from a pool
per query (a session repeats its query now and then). Rows hold at most
20,000 records, as docs/scale.md advises for very frequent queries.
"""
import random
import sys
import time

raw_path, agg_path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
nq = 50000
words = ("account api key password reset export invoice csv login sso billing email webhook "
         "retry limit domain audit log team member role token rotate delete change setup "
         "error timeout upload file report dashboard alert notification plan upgrade").split()
weights = [1.0 / (k + 1) ** 1.05 for k in range(nq)]
total = sum(weights)
signals = [("click", 10), ("cite", 2), ("thumbs_up", 1), ("thumbs_down", 1), ("impression", 2)]
sig_total = sum(w for _, w in signals)

raw = open(raw_path, "w", buffering=1 << 20)
agg = open(agg_path, "w", buffering=1 << 20)
agg.write("query,doc,signal,count,sessions,first_seen,last_seen\n")
t = 1793523600  # 2026-11-01T09:00:00Z, one record a second
written = 0


days = {}


def iso(s):
    d, r = divmod(s, 86400)
    if d not in days:
        days[d] = time.strftime("%Y-%m-%dT", time.gmtime(d * 86400))
    return "%s%02d:%02d:%02dZ" % (days[d], r // 3600, r // 60 % 60, r % 60)


for q in range(nq):
    if written >= n:
        break
    count = max(1, int(round(n * weights[q] / total)))
    count = min(count, n - written)
    text = " ".join(rng.choice(words) for _ in range(3)) + " %d" % q
    pool = max(4, count // 2)
    # the query's records in rows: searches without a document, then its documents' signals
    rows = []
    left = count
    nodoc = int(count * 0.4)
    if nodoc:
        rows.append((None, None, nodoc))
        left -= nodoc
    while left > 0:
        doc = "c-%04d" % ((q * 7 + int(rng.paretovariate(1.2))) % 5000)
        r = rng.random() * sig_total
        for sig, w in signals:
            r -= w
            if r < 0:
                break
        c = min(left, max(1, int(rng.expovariate(1.0 / max(1, count / 6)))))
        rows.append((doc, sig, c))
        left -= c
    # a row holds at most 20,000 records (its list of sessions stays under 1 MiB):
    # rows of one query, document and signal add up
    pieces = []
    for doc, sig, c in rows:
        while c > 0:
            pieces.append((doc, sig, min(c, 20000)))
            c -= 20000
    for doc, sig, c in pieces:
        sess = set()
        first = t
        head = '{"query":"%s"' % text
        tail = ',"doc":"%s","signal":"%s"' % (doc, sig) if doc else ""
        lines = []
        for _ in range(c):
            s = "s%d-%d" % (q, rng.randrange(pool))
            sess.add(s)
            lines.append('%s%s,"session":"%s","time":"%s"}\n' % (head, tail, s, iso(t)))
            t += 1
        raw.write("".join(lines))
        agg.write('%s,%s,%s,%d,"%s",%s,%s\n' % (text, doc or "", sig or "", c, ",".join(sorted(sess)),
                                             iso(first), iso(t - 1)))
        written += c
raw.close()
agg.close()
