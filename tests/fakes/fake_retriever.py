#!/usr/bin/env python3
"""fake_retriever: a retriever command for the tests of `evalset run --cmd`.

Reads one JSON request per line on stdin ({"qid", "query", "k"}) and writes
one JSON reply per line on stdout. The answer ranks the ids "c-<word>" of
the query's words (lower case, letters only), best first, scores N, N-1,
...; a query holding the word "decline" gets an empty list with
"abstained": true.

--mode chooses how it misbehaves on the question --at (1-based, default 2);
the questions before it are answered correctly:
  ok       never misbehaves
  strings  answers every question with bare id strings (no scores)
  unknown  answers with the qid "q-9999"
  dup      lists the first document twice
  garbage  writes a line that is not JSON
  silent   exits (status 0) without answering
  crash    kills itself with SIGSEGV
  hang     never answers (sleeps)
  noread   exits with status 1 at once, before reading anything
FAKE_RETRIEVER_MODE in the environment, when set, is the default --mode (so
one command line can behave differently from one run to the next).
--pidfile FILE writes the process id first (so a test can check that a
hung retriever was stopped); --log FILE appends the qid of every request.
"""
import argparse
import json
import os
import signal
import sys
import time

from fake_rank import ranked


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default=os.environ.get("FAKE_RETRIEVER_MODE", "ok"))
    ap.add_argument("--at", type=int, default=2)
    ap.add_argument("--pidfile")
    ap.add_argument("--log")
    args = ap.parse_args()
    if args.pidfile:
        with open(args.pidfile, "w") as f:
            f.write("%d\n" % os.getpid())
    if args.mode == "noread":
        sys.exit(1)

    n = 0
    for line in sys.stdin:
        n += 1
        req = json.loads(line)
        qid, query, k = req["qid"], req["query"], req["k"]
        if args.log:
            with open(args.log, "a") as f:
                f.write(qid + "\n")
        reply = {"qid": qid, "results": ranked(query, k)}
        if "decline" in query.lower():
            reply = {"qid": qid, "results": [], "abstained": True}
        if args.mode == "strings":
            reply["results"] = [r["id"] for r in reply["results"]]
        if n == args.at:
            if args.mode == "unknown":
                reply["qid"] = "q-9999"
            elif args.mode == "dup" and reply["results"]:
                reply["results"].append(reply["results"][0])
            elif args.mode == "garbage":
                print("hello, this is not JSON", flush=True)
                continue
            elif args.mode == "silent":
                sys.exit(0)
            elif args.mode == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
            elif args.mode == "hang":
                time.sleep(600)
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
