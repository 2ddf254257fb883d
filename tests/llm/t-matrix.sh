#!/usr/bin/env bash
# The GitHub Actions matrix recipe of docs/scale.md, run as written against
# tests/fakes/fake_llm.py: the workflow is read from the document, and each
# job (each matrix value of it) runs its `run:` steps in a fresh copy of a
# repository, in the order `needs:` gives; actions/upload-artifact and
# download-artifact are played by copying files; checkout, the build
# dependencies and the build are what this build already did (build-ci/evalset
# is this evalset). Then: the merged set holds the questions one unsharded
# generate gives, and the merged worksheet equals one unsharded judge's, byte
# for byte. Prints TAP.
#
# usage: t-matrix.sh EVALSET
set -u
. "$(dirname "$0")/lib.sh"

export OPENAI_API_KEY=sk-SENTINEL-matrix-5e2a

# the user's repository: a corpus, the set docs-qa (tagged v1, with a few
# labelled questions), a run and the pool made from it
repo="$root/repo"; mkdir -p "$repo/data" "$repo/eval"; cd "$repo" || exit 1
make_corpus data/chunks.jsonl 48 11 500 3
make_run eval/run.trec 6 6 7 48 3
"$evalset" init docs-qa --corpus data/chunks.jsonl >/dev/null 2>&1
for i in 1 2 3 4 5 6; do
	"$evalset" add docs-qa --text "How is w00$i set for doc $i?" --relevant "c-00$i" >/dev/null 2>&1
done
"$evalset" tag docs-qa v1 >/dev/null 2>&1
"$evalset" pool docs-qa@v1 eval/run.trec -o eval/pool.yaml >/dev/null 2>&1; ok $? "the repository: a set, a pool"

# the reference: one unsharded generate and one unsharded judge
cp -r "$repo" "$root/ref"
start_fake
(cd "$root/ref" && "$evalset" generate docs-qa --base-url "$BASE" --model gpt-4o-mini --prompt-dir "$src/prompts" \
	--kinds factoid,paraphrase >/dev/null 2>&1 &&
 "$evalset" judge eval/pool.yaml --base-url "$BASE" --model gpt-4o-mini --prompt-dir "$src/prompts" >/dev/null 2>&1)
ok $? "the unsharded reference runs"
ref_requests=$(stat_py 'd["requests"]')

# the workflow, as written in docs/scale.md
python3 - "$src/docs/scale.md" > "$root/workflow.yaml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"<!-- recipe: llm-matrix[^>]*-->\s*```yaml\n(.*?)```", text, re.S)
print(m.group(1) if m else "", end="")
PY
[ -s "$root/workflow.yaml" ]; ok $? "docs/scale.md holds the recipe"

mkdir -p "$root/bin"; ln -s "$evalset" "$root/bin/evalset"
python3 - "$root/workflow.yaml" "$repo" "$root/jobs" "$root/artifacts" "$root/bin/evalset" "$BASE" "$src/prompts" \
	> "$root/matrix.log" 2>&1 <<'PY'
import glob, os, re, shutil, subprocess, sys, yaml
wf_path, repo, jobs_dir, art, evalset, base, prompts = sys.argv[1:]
wf = yaml.safe_load(open(wf_path))
env = dict(os.environ)
def expand(s, matrix):
    s = re.sub(r"\$\{\{\s*matrix\.(\w+)\s*\}\}", lambda m: str(matrix[m.group(1)]), s)
    s = re.sub(r"\$\{\{\s*secrets\.(\w+)\s*\}\}", lambda m: os.environ.get(m.group(1), ""), s)
    return s
for k, v in (wf.get("env") or {}).items():
    env[k] = expand(str(v), {})
env["OPENAI_BASE_URL"] = base           # the fake server, as a repository variable would
env["EVALSET_PROMPT_DIR"] = prompts
done, order = set(), []
jobs = wf["jobs"]
while len(done) < len(jobs):
    for name, job in jobs.items():
        needs = job.get("needs") or []
        needs = [needs] if isinstance(needs, str) else needs
        if name not in done and all(n in done for n in needs):
            order.append(name); done.add(name)
skipped = {"Install build dependencies", "Build evalset"}
for name in order:
    job = jobs[name]
    values = (job.get("strategy") or {}).get("matrix", {}).get("shard") or [None]
    for v in values:
        matrix = {"shard": v}
        ws = os.path.join(jobs_dir, "%s-%s" % (name, v))
        shutil.copytree(repo, ws)                      # actions/checkout: a fresh copy
        os.makedirs(os.path.join(ws, "build-ci"))
        os.symlink(evalset, os.path.join(ws, "build-ci", "evalset"))
        for step in job["steps"]:
            uses = step.get("uses", "")
            w = {k: expand(str(x), matrix) for k, x in (step.get("with") or {}).items()}
            if uses.startswith("actions/checkout") or step.get("name") in skipped:
                continue
            if uses.startswith("actions/upload-artifact"):
                dst = os.path.join(art, w["name"]); os.makedirs(dst)
                for p in w["path"].split():
                    shutil.copy(os.path.join(ws, p), dst)
                continue
            if uses.startswith("actions/download-artifact"):
                for d in sorted(glob.glob(os.path.join(art, w["pattern"]))):
                    dst = os.path.join(ws, w["path"])
                    if w.get("merge-multiple") != "True":
                        dst = os.path.join(dst, os.path.basename(d))
                    shutil.copytree(d, dst, dirs_exist_ok=True)
                continue
            script = expand(step["run"], matrix)
            print("== %s[%s]: %s" % (name, v, step.get("name", "")), flush=True)
            r = subprocess.run(["bash", "-e", "-c", script], cwd=ws, env=env)
            if r.returncode:
                print("step failed with %d" % r.returncode); sys.exit(1)
PY
ok $? "every job of the matrix runs as written" "$(tail -5 "$root/matrix.log")"
is "$(ls "$root/jobs" | tr '\n' ' ')" "generate-1 generate-2 generate-3 generate-4 judge-1 judge-2 judge-3 judge-4 merge-generate-None merge-judge-None " "4 generate jobs, 4 judge jobs, 2 merges"
is "$(stat_py 'd["requests"]')" "$((ref_requests * 2))" "the shards together asked what the reference asked, once"
is "$(stat_py 'max(d["keys"].values())')" 2 "no request asked by two shards (each once, besides the reference)"
# the replies the shards recorded, together, are the reference's (what a set
# keeps of them depends on the order replies arrive in: near duplicates)
replies() { python3 -c '
import json, sys
for f in sys.argv[1:]:
    for line in open(f):
        r = json.loads(line)
        if r.get("status") == "ok":
            print(r["key"], json.dumps(r["questions"], sort_keys=True))' "$@" | sort; }
replies "$root"/jobs/generate-*/sets/part-*/.evalset/generate.jsonl > got
replies "$root/ref/sets/docs-qa/.evalset/generate.jsonl" > want
cmp -s got want; ok $? "the shards' replies together are one unsharded generate's ($(wc -l < want))"
grep -E '^  text: ' "$root/artifacts/docs-qa/set.yaml" | sort > texts
is "$(uniq -d texts | wc -l)" 0 "the merged set holds no question twice"
is "$(grep -c '^- id: q-' "$root/artifacts/docs-qa/set.yaml")" "$(($(grep -c '^- id: q-' "$root/repo/sets/docs-qa/set.yaml") + $(cat "$root"/jobs/generate-*/sets/part-*/set.yaml | grep -c '^- id: q-')))" "it holds every shard's questions"
cmp -s "$root/artifacts/pool/pool.yaml" "$root/ref/eval/pool.yaml"; ok $? "the merged worksheet is byte-identical to one unsharded judge's"
! grep -rq "SENTINEL" "$root/artifacts" "$root/matrix.log"; ok $? "the key is in no artifact or log"
stop_fake

echo "1..$n"
[ "$failed" = 0 ]
