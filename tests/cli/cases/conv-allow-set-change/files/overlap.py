# A word-overlap retriever speaking evalset's --cmd protocol (docs/run.md):
# each chunk scores the number of distinct words it shares with the question,
# plus, with "history" as first argument, those it shares with each earlier
# user turn the request carries; with "turn" the history is ignored.
import json, re, sys

use_history = sys.argv[1] == "history"
chunks = [json.loads(l) for l in open(sys.argv[2])]
words = lambda s: set(re.findall(r"[a-z]+", s.lower()))
for line in sys.stdin:
    req = json.loads(line)
    asked = [words(req["query"])]
    if use_history:
        asked += [words(t["text"]) for t in req.get("history", []) if t["role"] == "user"]
    scored = sorted(((sum(len(a & words(c["text"])) for a in asked), c["id"]) for c in chunks),
                    key=lambda x: (-x[0], x[1]))
    hits = [{"id": i, "score": s} for s, i in scored if s > 0][: req["k"]]
    print(json.dumps({"qid": req["qid"], "results": hits}), flush=True)
