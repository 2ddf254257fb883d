#!/usr/bin/env bash
# docs/ci.md run as written: the one-time setup (a shell block) and the
# workflow's `run:` steps (a YAML block), in a scratch copy of the
# repository, with GITHUB_ACTIONS=true and a scratch GITHUB_STEP_SUMMARY.
# Checkout, the apt-get step and the build are what this build already did
# (build-ci/evalset is this evalset), except that the apt-get step must
# install every package tools/dev.sh names for building (a pasted workflow
# whose `meson setup` cannot find ICU is the failure this catches); the `gh`
# comment and the artifact upload are GitHub's and are not run. Prints TAP.
#
# usage: t-ci-doc.sh EVALSET
set -u
evalset=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/tap.sh"

python3 - "$src/docs/ci.md" "$src/tools/dev.sh" "$tmp" > "$tmp/extract.log" 2>&1 <<'PY'
import json, re, sys
doc, devsh, out = sys.argv[1:]
text = open(doc).read()
setup = re.search(r"## One-time setup.*?```sh\n(.*?)```", text, re.S).group(1)
workflow = re.search(r"## The workflow.*?```yaml\n(.*?)```", text, re.S).group(1)
open(out + "/setup.sh", "w").write(setup)
open(out + "/workflow.yaml", "w").write(workflow)
# the packages the build needs: tools/dev.sh's list, less the compiler,
# python3 and certificates a runner has
m = re.search(r"^packages=\((.*?)\)", open(devsh).read(), re.S | re.M)
need = set(m.group(1).split()) - {"gcc", "python3", "ca-certificates"}
got = set()
for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
    if "apt-get install" not in block:
        continue
    words = set(re.sub(r"\\\n", " ", block).split())
    missing = sorted(need - words)
    print("missing:", " ".join(missing) if missing else "none")
PY
[ -s "$tmp/workflow.yaml" ] && ! grep -q "^missing: [^n]" "$tmp/extract.log" && grep -q "^missing: none" "$tmp/extract.log"
ok $? "every workflow of docs/ci.md installs every package the build needs"
grep "^missing" "$tmp/extract.log" | grep -v none | sed 's/^/# /'

# a scratch copy of the repository, with the build in build-ci
repo=$tmp/repo; mkdir -p "$repo/build-ci" "$tmp/bin"
cp -a "$src/sets" "$repo/"
ln -s "$evalset" "$repo/build-ci/evalset"
ln -s "$evalset" "$tmp/bin/evalset"
export PATH="$tmp/bin:$PATH" GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY=$tmp/summary.md
(cd "$repo" && grep -v '^git ' "$tmp/setup.sh" | bash -e) > "$tmp/setup.log" 2>&1
rc=$?; ok $rc "the one-time setup runs as written"; [ $rc = 0 ] || tail -5 "$tmp/setup.log" | sed 's/^/# /'

mkdir "$tmp/steps"
python3 - "$tmp/workflow.yaml" "$tmp/steps" <<'PY'
import sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
i = 0
for job in wf["jobs"].values():
    for step in job["steps"]:
        run = step.get("run")
        if not run or "apt-get" in run or "meson setup" in run or "gh pr" in run:
            continue
        i += 1
        open("%s/%02d.sh" % (sys.argv[2], i), "w").write("# %s\n%s" % (step["name"], run))
PY
ls "$tmp/steps"/*.sh >/dev/null 2>&1; ok $? "the workflow has its steps"
for f in "$tmp/steps"/*.sh; do
  (cd "$repo" && bash -e "$f") > "$tmp/step.log" 2>&1
  rc=$?; ok $rc "workflow step: $(head -1 "$f" | cut -c3-)"; [ $rc = 0 ] || tail -5 "$tmp/step.log" | sed 's/^/# /'
done
grep -q "gate passed" "$repo/compare.md" && grep -q '<testsuite' "$repo/compare.xml" &&
  grep -q "### evalset compare" "$tmp/summary.md"
ok $? "the compare step writes the Markdown summary, the JUnit and the job summary"
tap_end
