#!/usr/bin/env python3
"""Write a synthetic query log for bench/import.sh: N JSON Lines records.

usage: gen-import-log.py OUT N [SEED]

Queries follow a Zipf-like law over 40,000 query intents, each with a few
surface variants (case, trailing '?', extra spaces), so grouping has work to
do; records carry a session, an ISO time, a signal (click with dwell, cite,
rating, impression), one or two document ids and a user agent, about 150
bytes a line. Some queries hold an e-mail address or a phone number.
"""
import random
import sys

out, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
base = ("account password reset login billing invoice export import api key token rotate "
         "webhook error timeout limit quota plan upgrade downgrade refund card payment sso saml "
         "oauth user team role permission audit log backup restore region latency search index "
         "report dashboard chart csv pdf email phone mobile app sync delete archive").split()
# a realistic vocabulary: the product words above plus 3,000 rarer made-up terms
syll = "ka lo mi ne ru ta si vo pe da gu fi ze bo".split()
words = base * 20 + ["".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(3000)]
starts = ["how do i", "how to", "why does", "can i", "what is", "where is", "", "", "when will"]
intents = []
for i in range(40000):
    k = rng.randint(2, 5)
    q = " ".join(rng.choice(words) for _ in range(k))
    s = rng.choice(starts)
    intents.append((s + " " + q).strip())
weights = [1.0 / (r + 1) ** 1.05 for r in range(len(intents))]
cum, acc = [], 0.0
for w in weights:
    acc += w
    cum.append(acc)
import bisect
signals = ["click"] * 6 + ["cite"] * 2 + ["thumbs_up", "thumbs_down", "impression", "rating:+1"]
with open(out, "w") as f:
    for i in range(n):
        r = bisect.bisect_left(cum, rng.random() * acc)
        q = intents[r]
        v = rng.random()
        if v < 0.2:
            q = q.capitalize() + "?"
        elif v < 0.25:
            q = q + "  "
        elif v < 0.251:
            q = q + " for user%d@example.com" % rng.randint(1, 999)
        elif v < 0.252:
            q = q + " call +1 415 555 %04d" % rng.randint(0, 9999)
        d = "c-%04d" % ((r * 7 + rng.randint(0, 3)) % 5000)
        docs = '"%s"' % d if rng.random() < 0.8 else '["%s","c-%04d"]' % (d, rng.randint(0, 4999))
        sig = rng.choice(signals)
        f.write('{"ts":"2026-11-%02dT%02d:%02d:%02dZ","session":"s-%07d","query":"%s",'
                '"doc":%s,"signal":"%s","dwell":%d,"ua":"Mozilla/5.0"}\n'
                % (1 + i * 28 // n, rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59),
                   rng.randint(0, 400000), q, docs, sig, rng.randint(1, 300)))
