#!/usr/bin/env python3
"""Crash safety: kill the commands that write a set with SIGKILL at random
points and check that nothing is ever left broken (docs/hardening.md, "Crash safety").

For each of tag, import, generate (against tests/fakes/fake_llm.py) and
label, on a scratch copy of a prepared set:
  1. the command runs uninterrupted on a fresh copy: the reference result
     and its duration D;
  2. several trials: start the command, SIGKILL it after a seeded random
     delay in [0, 1.2 D], then assert
       - the set file parses (`evalset check` exits 0 or 1, never 2),
       - every file that was under versions/ is byte-identical, and any new
         one is a complete version (`evalset ls SET@TAG` succeeds),
     then rerun the command to completion and assert the set ends as in the
     reference run (same `evalset ls --format json`, ids aside for generate,
     whose ids follow reply order, and import, whose killed run may have
     used up ids: ids are never reused, so the floor is saved before the
     set; same versions/ files).
Prints TAP. The seed is CRASH_SEED (default 11); the whole run stays well
under a minute.

usage: t-crash.py EVALSET
"""
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

EVALSET = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FAKE = os.path.join(SRC, "tests", "fakes", "fake_llm.py")
ENV = dict(os.environ, EVALSET_NOW="2026-11-29T12:00:00Z", NO_COLOR="1",
           OPENAI_API_KEY="sk-crash-test")
rng = random.Random(int(os.environ.get("CRASH_SEED", "11")))
count = 0
failed = 0


def tap(good, what, diag=""):
    global count, failed
    count += 1
    print("%s %d - %s" % ("ok" if good else "not ok", count, what))
    if not good:
        failed += 1
        for line in str(diag).splitlines()[:8]:
            print("#   " + line)
    sys.stdout.flush()


def ev(cwd, *args, check=True):
    p = subprocess.run([EVALSET] + list(args), cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if check and p.returncode != 0:
        raise RuntimeError("evalset %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr[-500:]))
    return p


def versions(d):
    """Return {file: sha256} of versions/, leaving out the temporary file an
    atomic write killed before its rename leaves behind (never read)."""
    out = {}
    vdir = os.path.join(d, "sets", "demo", "versions")
    if os.path.isdir(vdir):
        for name in sorted(os.listdir(vdir)):
            if ".tmp-" in name:
                continue
            with open(os.path.join(vdir, name), "rb") as f:
                out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


def set_state(d, old_ids=None):
    """Return the questions of the set; with 'old_ids', the ids of the other
    (new) questions are left out and the list sorted by content."""
    qs = json.loads(ev(d, "ls", "demo", "--format", "json").stdout)
    if old_ids is not None:
        for q in qs:
            if q["id"] not in old_ids:
                del q["id"]
        qs.sort(key=lambda q: json.dumps(q, sort_keys=True))
    return qs


# ---- the prepared sets ----

def write_corpus(d, n):
    with open(os.path.join(d, "chunks.jsonl"), "w") as f:
        for i in range(n):
            words = " ".join("w%03d" % ((i * 7 + k * 13) % 400) for k in range(30))
            f.write(json.dumps({"id": "c-%02d" % i, "doc": "d%d" % (i // 4), "title": "Doc %d" % (i // 4),
                                "text": "Setting " + words + "."}) + "\n")


def add_many(d, n, pattern):
    with open(os.path.join(d, "more.yaml"), "w") as f:
        for i in range(n):
            f.write("- text: %s\n  relevant: [c-%02d]\n" % (json.dumps(pattern % i), i % 40))
    ev(d, "add", "demo", "--from", "more.yaml")


def prepare_tag(d):
    write_corpus(d, 40)
    ev(d, "init", "demo", "--corpus", "chunks.jsonl")
    add_many(d, 300, "How does setting number %d change the export?")
    ev(d, "tag", "demo", "v1", "-m", "first")
    ev(d, "add", "demo", "--text", "What changed in the second version of setting 7?", "--relevant", "c-07")


def prepare_import(d):
    write_corpus(d, 40)
    ev(d, "init", "demo", "--corpus", "chunks.jsonl")
    ev(d, "add", "demo", "--text", "How is the first setting exported?", "--relevant", "c-00")
    ev(d, "tag", "demo", "v1")
    r = random.Random(3)
    with open(os.path.join(d, "log.jsonl"), "w") as f:
        for i in range(50000):
            q = r.randrange(2000)
            f.write(json.dumps({"query": "how do I configure feature %d of product %d" % (q, q % 17),
                                "doc": "c-%02d" % r.randrange(40), "signal": "click",
                                "session": "s%d" % r.randrange(50000), "dwell": 60}) + "\n")


def prepare_generate(d):
    write_corpus(d, 24)
    ev(d, "init", "demo", "--corpus", "chunks.jsonl")
    ev(d, "add", "demo", "--text", "How is the first setting exported?", "--relevant", "c-00")
    ev(d, "tag", "demo", "v1")


def prepare_label(d):
    write_corpus(d, 40)
    ev(d, "init", "demo", "--corpus", "chunks.jsonl")
    add_many(d, 120, "Which setting controls export variant %d?")
    ev(d, "tag", "demo", "v1")
    with open(os.path.join(d, "run.trec"), "w") as f:
        for i in range(120):
            for r in range(6):
                f.write("q-%04d Q0 c-%02d %d %d bm25\n" % (i + 1, (i + r * 3 + 1) % 40, r + 1, 10 - r))
    ev(d, "pool", "demo", "run.trec", "-o", "pool.yaml", "--corpus", "chunks.jsonl")
    text = open(os.path.join(d, "pool.yaml")).read()
    parts = text.split("grade: null")
    graded = parts[0]
    for i, rest in enumerate(parts[1:]):
        graded += "grade: %d" % (i % 4) + rest
    with open(os.path.join(d, "pool.yaml"), "w") as f:
        f.write(graded)


class Fake:
    """fake_llm.py on a free port; stops when its stdin closes."""

    def __init__(self):
        self.p = subprocess.Popen([sys.executable, FAKE, "--latency", "15"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.base = "http://127.0.0.1:%s/v1" % self.p.stdout.readline().strip()

    def stop(self):
        self.p.stdin.close()
        self.p.terminate()
        self.p.wait()


def commands(fake):
    gen = ["generate", "demo", "--corpus", "chunks.jsonl", "--model", "fake-1", "--base-url", fake.base,
           "--prompt-dir", os.path.join(SRC, "prompts"), "--kinds", "factoid", "--concurrency", "4", "-q"]
    return [
        ("tag", prepare_tag, ["tag", "demo", "v2", "-m", "second"], False, 6),
        ("import", prepare_import, ["import", "demo", "--log", "log.jsonl"], True, 4),
        ("generate", prepare_generate, gen, True, 4),
        ("label", prepare_label, ["label", "demo", "--from", "pool.yaml"], False, 6),
    ]


def run_to_end(d, args):
    p = ev(d, *args, check=False)
    if p.returncode != 0 and not (args[0] == "tag" and "v2.yaml" in versions(d)):
        raise RuntimeError("rerun of %s: exit %d: %s" % (args[0], p.returncode, p.stderr[-400:]))


def main():
    root = tempfile.mkdtemp(prefix="evalset-crash-")
    fake = Fake()
    try:
        for name, prepare, args, drop_ids, trials in commands(fake):
            deadline = time.monotonic() + 12   # each command's share of the time
            template = os.path.join(root, name + "-template")
            os.makedirs(template)
            prepare(template)
            before = versions(template)
            old_ids = set(q["id"] for q in set_state(template)) if drop_ids else None

            ref = os.path.join(root, name + "-ref")
            shutil.copytree(template, ref, symlinks=True)
            t0 = time.monotonic()
            ev(ref, *args)
            dur = time.monotonic() - t0
            want_state, want_versions = set_state(ref, old_ids), versions(ref)

            killed_mid = 0
            for t in range(trials):
                if time.monotonic() > deadline:
                    tap(True, "%s trial %d # SKIP time budget spent" % (name, t + 1))
                    continue
                d = os.path.join(root, "%s-%d" % (name, t))
                shutil.copytree(template, d, symlinks=True)
                delay = rng.uniform(0, 1.2 * dur)
                p = subprocess.Popen([EVALSET] + args, cwd=d, env=ENV, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                time.sleep(delay)
                p.send_signal(signal.SIGKILL)
                rc = p.wait()
                killed_mid += rc == -signal.SIGKILL
                what = "%s killed after %.0f ms (of %.0f)" % (name, delay * 1000, dur * 1000)

                chk = ev(d, "check", "demo", check=False)
                tap(chk.returncode in (0, 1), what + ": the set still parses",
                    "check exit %d: %s" % (chk.returncode, chk.stderr[-300:]))
                now = versions(d)
                same = all(now.get(k) == v for k, v in before.items())
                tap(same, what + ": frozen versions unchanged", "before %s after %s" % (before, now))
                new_ok = all(ev(d, "ls", "demo@" + k[:-5], check=False).returncode == 0
                             for k in now if k not in before)
                tap(new_ok, what + ": a new version file is complete")
                try:
                    run_to_end(d, args)
                    got_state, got_versions = set_state(d, old_ids), versions(d)
                    tap(got_state == want_state and got_versions == want_versions,
                        what + ": a rerun ends as the uninterrupted run",
                        "questions %d vs %d, versions %s vs %s" % (len(got_state), len(want_state),
                                                                  got_versions, want_versions))
                except RuntimeError as e:
                    tap(False, what + ": a rerun ends as the uninterrupted run", e)
                shutil.rmtree(d)
            print("# %s: %d of %d trials killed before the command finished" % (name, killed_mid, trials))
    finally:
        fake.stop()
        shutil.rmtree(root, ignore_errors=True)
    print("1..%d" % count)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
