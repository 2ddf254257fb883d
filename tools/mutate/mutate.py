#!/usr/bin/env python3
"""Mutation testing of evalset's core: does a small deliberate bug fail a test?

Each mutant of tools/mutate/mutants.txt replaces one exact snippet of one
source file (the snippet must occur there exactly once) and names the fast
tests that should catch it. For each mutant, in a scratch copy of the tree
(never the tree you work in), the runner applies the replacement, builds
incrementally with ninja (the evalset binary and the unit tests named),
runs the tests named, first failure first, and puts the file back:

  killed        a named test failed (or ran past its time limit)
  survived      every named test passed: a real bug there would go unnoticed
  build-failed  the mutant does not compile (not counted in the score)
  equivalent    marked in the list with the reason it cannot change what a
                user sees (not run, not counted)

It prints a line per mutant, then each module's score (killed / (killed +
survived)) and the overall one, and the survivors. Before the mutants it
runs every named test on the unmutated copy: a test that fails there would
kill every mutant and prove nothing.

  tools/dev.sh mutate                    every mutant
  tools/dev.sh mutate --module gate      one module (repeatable)
  tools/dev.sh mutate --name gate-noninf-inverted
  tools/dev.sh mutate --list             the modules and mutants, nothing run
  tools/dev.sh mutate --check            every snippet still in the code, nothing run

The scratch copy is kept (default $TMPDIR/evalset-mutate-<user>) so a second
run rebuilds only what changed; --fresh starts it again. Exit 0 when every
module scored at least --min-score percent (default 90), 1 when one did not,
2 on a bad list, a stale snippet or a baseline failure.
"""
import argparse
import fnmatch
import getpass
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ("module", "file", "from", "to", "run", "equivalent")
BUILD_TIMEOUT = 900
UNIT_TIMEOUT = 120
CLI_TIMEOUT = 600
CONFORMANCE_TIMEOUT = 600


class Mutant:
    def __init__(self, name, line):
        self.name = name
        self.line = line
        self.module = self.file = self.src = self.dst = None
        self.run = []
        self.equivalent = None
        self.result = None
        self.detail = ""
        self.seconds = 0.0


def unescape(s):
    """Decode \\n, \\t and \\\\ in a snippet of the list."""
    out, i = [], 0
    while i < len(s):
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "nt\\":
            out.append({"n": "\n", "t": "\t", "\\": "\\"}[s[i + 1]])
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def escape(s):
    """Write a snippet on one line, as the list does."""
    return s.strip().replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")


def parse_list(path):
    """Read the mutants of 'path'; exit 2 with FILE:LINE on a bad entry."""
    mutants, cur, problems = [], None, []
    with open(path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                cur = Mutant(line[1:-1].strip(), no)
                mutants.append(cur)
                continue
            key, sep, value = line.partition(": ")
            if not sep and line.endswith(":"):
                key, sep, value = line[:-1], ":", ""
            if cur is None or not sep or key not in KEYS:
                problems.append(f"{path}:{no}: expected '[name]' or one of "
                                f"{', '.join(KEYS)} followed by ': '")
                continue
            if key == "module":
                cur.module = value.strip()
            elif key == "file":
                cur.file = value.strip()
            elif key == "from":
                cur.src = unescape(value)
            elif key == "to":
                cur.dst = unescape(value)
            elif key == "run":
                cur.run = value.split()
            else:
                cur.equivalent = value.strip()
    seen = set()
    for m in mutants:
        where = f"{path}:{m.line}: mutant '{m.name}'"
        if m.name in seen:
            problems.append(f"{where}: duplicate name")
        seen.add(m.name)
        for k, v in (("module", m.module), ("file", m.file), ("from", m.src), ("to", m.dst)):
            if not v and v != "":
                problems.append(f"{where}: no '{k}'")
        if m.src == m.dst:
            problems.append(f"{where}: 'to' is the same as 'from'")
        if not m.run and not m.equivalent:
            problems.append(f"{where}: no 'run' (the tests that should kill it)")
        for t in m.run:
            kind, _, arg = t.partition(":")
            if t == "conformance":
                continue
            if kind not in ("unit", "cli") or not arg:
                problems.append(f"{where}: unknown test '{t}' (unit:NAME, cli:CASE or "
                                f"cli:PATTERN*, conformance)")
            elif kind == "unit" and arg == "calibration":
                problems.append(f"{where}: unit:calibration is the slow simulation; name a "
                                f"fast test that catches it (or add one)")
    if problems:
        sys.exit("\n".join(problems))
    return mutants


def sh(cmd, cwd, timeout, env=None):
    """Run 'cmd' in its own process group; return (exit code, or "timeout"
    after killing the whole group, and the combined output)."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        # a mutant looping in evalset under run.sh: the whole group, by its id
        try:
            os.killpg(p.pid, 9)
        except OSError:
            pass
        out, _ = p.communicate()
        return "timeout", out.decode("utf-8", "replace")


def failure(rc, out):
    """Say in one line why a TAP program failed: its failed checks, else how it ended."""
    if rc == "timeout":
        return "timed out"
    bad = [l for l in out.splitlines() if l.startswith("not ok")]
    if bad:
        return "; ".join(bad[:3])
    return f"killed by signal {-rc}" if rc < 0 else f"exit {rc} with no failed check"


def sync_tree(src, dst):
    """Copy the files git knows (tracked, or untracked and not ignored) from
    'src' into 'dst', writing only those whose bytes differ so that ninja
    rebuilds only what changed; remove files no longer there."""
    out = subprocess.run(["git", "-C", src, "ls-files", "-z", "-c", "-o", "--exclude-standard"],
                         stdout=subprocess.PIPE, check=True).stdout
    names = [n for n in out.decode().split("\0") if n]
    wanted = set()
    for n in names:
        s = os.path.join(src, n)
        if not os.path.isfile(s) or os.path.islink(s):
            if os.path.islink(s):
                d = os.path.join(dst, n)
                os.makedirs(os.path.dirname(d), exist_ok=True)
                if not os.path.lexists(d):
                    os.symlink(os.readlink(s), d)
                wanted.add(n)
            continue
        wanted.add(n)
        d = os.path.join(dst, n)
        with open(s, "rb") as f:
            data = f.read()
        try:
            with open(d, "rb") as f:
                same = f.read() == data
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(d), exist_ok=True)
            with open(d, "wb") as f:
                f.write(data)
            shutil.copymode(s, d)
    listed = os.path.join(dst, ".mutate-files")
    if os.path.exists(listed):
        with open(listed) as f:
            for n in f.read().split("\0"):
                if n and n not in wanted and os.path.lexists(os.path.join(dst, n)):
                    os.remove(os.path.join(dst, n))
    with open(listed, "w") as f:
        f.write("\0".join(sorted(wanted)))


class Runner:
    def __init__(self, scratch, cases_all, jobs):
        self.scratch = scratch
        self.build = os.path.join(scratch, "build")
        self.evalset = os.path.join(self.build, "evalset")
        self.cases_all = cases_all
        self.jobs = jobs
        self.env = dict(os.environ, EVALSET_SRC=scratch, EVALSET_BIN=self.evalset)

    def setup(self):
        if not os.path.exists(os.path.join(self.build, "build.ninja")):
            rc, out = sh(["meson", "setup", self.build], self.scratch, BUILD_TIMEOUT)
            if rc != 0:
                sys.exit(f"meson setup in {self.scratch} failed:\n{out[-3000:]}")

    def targets(self, tests):
        t = ["evalset"]
        t += sorted({"tests/t-" + x.split(":", 1)[1] for x in tests if x.startswith("unit:")})
        return t

    def ninja(self, tests):
        return sh(["ninja", "-C", self.build, f"-j{self.jobs}"] + self.targets(tests),
                  self.scratch, BUILD_TIMEOUT)

    def cli_cases(self, tests):
        names = []
        for t in tests:
            if not t.startswith("cli:"):
                continue
            pat = t[4:]
            hits = fnmatch.filter(self.cases_all, pat) if any(c in pat for c in "*?[") else [pat]
            for h in hits:
                if h not in names:
                    names.append(h)
        return names

    def run_tests(self, tests):
        """Run 'tests', fast ones first; return (None, '') when all pass, else
        (the failing test, its output's tail)."""
        for t in tests:
            if t.startswith("unit:"):
                name = t[5:]
                rc, out = sh([os.path.join(self.build, "tests", "t-" + name)], self.scratch,
                             UNIT_TIMEOUT, self.env)
                if rc != 0:
                    return t, failure(rc, out)
        cases = self.cli_cases(tests)
        if cases:
            rc, out = sh(["bash", os.path.join(self.scratch, "tests/cli/run.sh"), self.evalset,
                          os.path.join(self.scratch, "tests/cli/cases")] + cases,
                         self.scratch, CLI_TIMEOUT, self.env)
            if rc != 0:
                return "cli", failure(rc, out)
        if "conformance" in tests:
            why = self.conformance()
            if why:
                return "conformance", why
        return None, ""

    def conformance(self):
        """Run the trec_eval pack as tests/conformance/trec_eval/check.sh does
        (each case's cmd.V with trec_eval replaced by 'evalset trec-eval':
        stdout equal to expected.V.out, or a failure with a message where
        trec_eval failed), stopping at the first case that differs. Return
        why it failed, or ''."""
        pack = os.path.join(self.scratch, "tests/conformance/trec_eval")
        deadline = time.time() + CONFORMANCE_TIMEOUT
        for case in sorted(os.listdir(pack)):
            cdir = os.path.join(pack, case)
            if not os.path.isdir(cdir):
                continue
            for f in sorted(os.listdir(cdir)):
                if not f.startswith("cmd."):
                    continue
                v = f[4:]
                with open(os.path.join(cdir, f)) as fh:
                    args = fh.read().strip()
                if args.startswith("trec_eval "):
                    args = args[len("trec_eval "):]
                with open(os.path.join(cdir, f"expected.{v}.rc")) as fh:
                    want_rc = fh.read().strip()
                left = deadline - time.time()
                if left <= 0:
                    return "timed out"
                p = subprocess.Popen(["bash", "-c", f'"$EVALSET_BIN" trec-eval {args}'], cwd=cdir,
                                     env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
                try:
                    out, err = p.communicate(timeout=left)
                except subprocess.TimeoutExpired:
                    try:
                        os.killpg(p.pid, 9)
                    except OSError:
                        pass
                    p.communicate()
                    return f"{case} ({v}) timed out"
                if want_rc == "0":
                    with open(os.path.join(cdir, f"expected.{v}.out"), "rb") as fh:
                        want = fh.read()
                    if p.returncode != 0 or out != want:
                        return f"{case} ({v}): exit {p.returncode}, stdout differs"
                elif p.returncode == 0 or not err:
                    return f"{case} ({v}): expected a failure with a message, got exit {p.returncode}"
        return ""

    def mutate(self, m):
        path = os.path.join(self.scratch, m.file)
        with open(path, encoding="utf-8") as f:
            orig = f.read()
        start = time.time()
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig.replace(m.src, m.dst, 1))
            rc, out = self.ninja(m.run)
            if rc != 0:
                m.result = "build-failed"
                errs = [l for l in out.splitlines() if "error:" in l]
                m.detail = errs[0].strip() if errs else out[-200:].strip()
            else:
                failed, why = self.run_tests(m.run)
                m.result = "killed" if failed else "survived"
                m.detail = f"{failed}: {why}" if failed else ""
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig)
        m.seconds = time.time() - start


def main():
    ap = argparse.ArgumentParser(
        prog="tools/dev.sh mutate",
        description="Apply each mutant of the list in a scratch copy, build, run the "
                    "tests it names; print the score per module and the survivors.")
    ap.add_argument("--list-file", default=os.path.join(HERE, "mutants.txt"),
                    help="the mutants (default tools/mutate/mutants.txt)")
    ap.add_argument("--module", action="append", default=[],
                    help="run this module's mutants only (repeatable)")
    ap.add_argument("--name", action="append", default=[],
                    help="run this mutant only (repeatable)")
    ap.add_argument("--list", action="store_true", help="list modules and mutants; run nothing")
    ap.add_argument("--check", action="store_true",
                    help="check the list and that every snippet is in the tree once; run nothing")
    ap.add_argument("--scratch", help="the scratch copy (default $TMPDIR/evalset-mutate-USER)")
    ap.add_argument("--fresh", action="store_true", help="remove the scratch copy first")
    ap.add_argument("--min-score", type=float, default=90.0,
                    help="percent each module must reach for exit 0 (default 90)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="ninja jobs (default 2)")
    args = ap.parse_args()

    src = subprocess.run(["git", "-C", HERE, "rev-parse", "--show-toplevel"],
                         stdout=subprocess.PIPE, check=True).stdout.decode().strip()
    mutants = parse_list(args.list_file)
    modules = sorted({m.module for m in mutants})
    for mod in args.module:
        if mod not in modules:
            sys.exit(f"unknown module '{mod}' (known: {', '.join(modules)})")
    names = {m.name for m in mutants}
    for n in args.name:
        if n not in names:
            sys.exit(f"unknown mutant '{n}'")
    chosen = [m for m in mutants if (not args.module or m.module in args.module)
              and (not args.name or m.name in args.name)]
    if args.list:
        for mod in modules:
            ms = [m for m in mutants if m.module == mod]
            eq = sum(1 for m in ms if m.equivalent)
            print(f"{mod}: {len(ms)} mutants ({eq} equivalent)")
            for m in ms:
                print(f"  {m.name:40s} {m.file}{'  [equivalent]' if m.equivalent else ''}")
        return 0

    # every snippet must still be in the tree, once
    stale = []
    for m in chosen:
        try:
            with open(os.path.join(src, m.file), encoding="utf-8") as f:
                n = f.read().count(m.src)
        except OSError:
            n = -1
        if n != 1:
            stale.append(f"{args.list_file}:{m.line}: mutant '{m.name}': the 'from' snippet "
                         f"occurs {max(n, 0)} times in {m.file} (must be once): update the mutant "
                         f"to the code")
    if stale:
        sys.exit("\n".join(stale))
    if args.check:
        print(f"{len(chosen)} mutants, every snippet found once")
        return 0

    scratch = args.scratch or os.path.join(tempfile.gettempdir(),
                                           f"evalset-mutate-{getpass.getuser()}")
    scratch = os.path.abspath(scratch)
    if scratch == src or scratch.startswith(src + os.sep):
        sys.exit(f"the scratch copy must be outside the tree: {scratch}")
    if args.fresh and os.path.exists(scratch):
        shutil.rmtree(scratch)
    os.makedirs(scratch, exist_ok=True)
    print(f"== scratch copy: {scratch}")
    sync_tree(src, scratch)
    cases_all = sorted(os.listdir(os.path.join(scratch, "tests/cli/cases")))
    r = Runner(scratch, cases_all, args.jobs)
    r.setup()

    live = [m for m in chosen if not m.equivalent]
    union = []
    for m in live:
        for t in m.run:
            if t not in union:
                union.append(t)
    for t in union:
        if t.startswith("cli:") and not r.cli_cases([t]):
            sys.exit(f"no CLI case matches '{t}'")
        if t.startswith("cli:") and not any(c in t for c in "*?[") and t[4:] not in cases_all:
            sys.exit(f"no CLI case '{t[4:]}' in tests/cli/cases")
    print(f"== baseline: building and running {len(union)} test names unmutated")
    rc, out = r.ninja(union)
    if rc != 0:
        sys.exit(f"the unmutated tree does not build:\n{out[-3000:]}")
    failed, why = r.run_tests(union)
    if failed:
        sys.exit(f"the unmutated tree fails {failed} ({why}): fix that first")

    print(f"== {len(live)} mutants to run, {len(chosen) - len(live)} marked equivalent")
    t0 = time.time()
    for i, m in enumerate(live, 1):
        r.mutate(m)
        print(f"[{i}/{len(live)}] {m.result:12s} {m.module}/{m.name} ({m.seconds:.0f}s)"
              f"{'  ' + m.detail[:150] if m.detail else ''}", flush=True)
    for m in chosen:
        if m.equivalent:
            m.result = "equivalent"
    # rebuild the unmutated binaries, so the scratch copy is left as the tree is
    r.ninja(union)

    print(f"\n== score (killed / (killed + survived)); {time.time() - t0:.0f}s")
    ok = True
    tot_k = tot_s = 0
    for mod in sorted({m.module for m in chosen}):
        ms = [m for m in chosen if m.module == mod]
        k = sum(m.result == "killed" for m in ms)
        s = sum(m.result == "survived" for m in ms)
        b = sum(m.result == "build-failed" for m in ms)
        e = sum(m.result == "equivalent" for m in ms)
        tot_k += k
        tot_s += s
        score = 100.0 * k / (k + s) if k + s else 100.0
        ok &= score >= args.min_score
        print(f"{mod:12s} {k:3d}/{k + s:<3d} {score:5.1f}%"
              f"{f'  ({b} build-failed)' if b else ''}{f'  ({e} equivalent)' if e else ''}")
    score = 100.0 * tot_k / (tot_k + tot_s) if tot_k + tot_s else 100.0
    ok &= score >= args.min_score
    print(f"{'overall':12s} {tot_k:3d}/{tot_k + tot_s:<3d} {score:5.1f}%")
    surv = [m for m in chosen if m.result == "survived"]
    if surv:
        print("\nsurvivors (a bug there passes every test named):")
        for m in surv:
            print(f"  {m.module}/{m.name}: {m.file}: '{escape(m.src)}' -> '{escape(m.dst)}' "
                  f"(ran {' '.join(m.run)})")
    eqs = [m for m in chosen if m.result == "equivalent"]
    if eqs:
        print("\nequivalent (not run):")
        for m in eqs:
            print(f"  {m.module}/{m.name}: {m.equivalent}")
    bf = [m for m in chosen if m.result == "build-failed"]
    if bf:
        print("\nbuild-failed (not counted):")
        for m in bf:
            print(f"  {m.module}/{m.name}: {m.detail[:150]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
