#!/usr/bin/env python3
"""Write one generated search log twice: raw.jsonl (a record a line, as the
application logs it) and events.sql (the same records as rows of a table
events(query, doc, signal, session, time, dwell), as a warehouse holds them).
Deterministic (fixed seed). Records are in time order, one every 7 seconds.
"""
import json
import random

rng = random.Random(23)
topics = [  # (weight, forms of one query: they group into one question)
    (30, ["Reset password", "reset password?", "RESET PASSWORD", "reset  password"]),
    (12, ["export invoices as csv", "Export invoices as CSV"]),
    (9, ["rotate api key"]),
    (6, ["sso login fails", "SSO login fails!"]),
    (5, ["mail jane@example.com about invoices"]),
    (4, ["delete my account"]),
    (3, ["webhook retries", "Webhook retries?"]),
    (2, ["change billing email"]),
    (2, ["two factor setup"]),
    (1, ["rate limits"]),
    (1, ["audit log export"]),
    (1, ["custom domain ssl"]),
]
docs = ["c-%04d" % k for k in range(1, 31)]
outcomes = [  # (weight, signal, dwell); doc None: a search without a document
    (30, None, None), (18, "click", "long"), (8, "click", "short"), (6, None, "long"),
    (3, None, "short"), (6, "cite", None), (5, "thumbs_up", None), (3, "thumbs_down", None),
    (5, "impression", None), (4, None, None), (2, "Click", "long"),
]
weights = [w for w, _ in topics]
N = 5200
raw = open("raw.jsonl", "w")
sql = open("events.sql", "w")
sql.write("CREATE TABLE events (query TEXT, doc TEXT, signal TEXT, session TEXT, time TEXT, dwell REAL);\n")
sql.write("BEGIN;\n")


def q(v):
    if v is None:
        return "NULL"
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + v.replace("'", "''") + "'"


for i in range(N):
    t = rng.choices(range(len(topics)), weights)[0]
    form = rng.choice(topics[t][1])
    # the head query has over 1,024 distinct sessions (past the exact count),
    # all named; in the rarer queries some records have none (each its own session)
    pool = 4000 if t == 0 else 60
    session = "u%d-%d" % (t, rng.randrange(pool))
    if t >= 3 and rng.random() < 0.06:
        session = None
    w, sig, dw = rng.choices(outcomes, [o[0] for o in outcomes])[0]
    doc = None
    if w != 30:
        doc = docs[(t * 3 + int(rng.paretovariate(1.5))) % len(docs)]
    dwell = None if dw is None else (rng.randrange(31, 300) if dw == "long" else rng.randrange(0, 30))
    s = 1793523600 + 7 * i
    h, m, sec = s // 3600 % 24, s // 60 % 60, s % 60
    day = 1 + (s - 1793491200) // 86400
    time = "2026-11-%02dT%02d:%02d:%02dZ" % (day, h, m, sec)
    rec = {"query": form, "time": time}
    if session is not None:
        rec["session"] = session
    if doc is not None:
        rec["doc"] = doc
        if sig is not None:
            rec["signal"] = sig
    if dwell is not None:
        rec["dwell"] = dwell
    raw.write(json.dumps(rec) + "\n")
    sql.write("INSERT INTO events VALUES (%s, %s, %s, %s, %s, %s);\n" % (
        q(form), q(doc), q(sig if doc is not None else None), q(session), q(time), q(dwell)))
sql.write("COMMIT;\n")
