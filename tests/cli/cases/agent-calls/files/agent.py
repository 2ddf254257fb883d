# A fake agent for `run --cmd`: answers each question with the calls that
# plan.json lists for it under the plan named on the command line.
import json, sys

plan = json.load(open(sys.argv[2]))[sys.argv[1]]
for line in sys.stdin:
    req = json.loads(line)
    calls = plan.get(req["qid"])
    if calls is None:
        print(json.dumps({"qid": req["qid"], "results": []}), flush=True)
    else:
        print(json.dumps({"qid": req["qid"], "calls": [
            {"query": "%s #%d" % (req["query"], n + 1), "results": r}
            for n, r in enumerate(calls)]}), flush=True)
