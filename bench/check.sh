#!/usr/bin/env bash
# Benchmark of `evalset check` (and so `tag`, which runs the same checks) as
# a set grows: 5,000, 10,000, 20,000 and 50,000 questions. What grows with
# the set is the near-duplicate check (docs/sets.md, "Rules").
#
# usage: bench/check.sh [EVALSET [OTHER_EVALSET]]
#        (default build/evalset; OTHER_EVALSET, e.g. a build of main before a
#        change, is measured in the same rounds, interleaved: a before/after)
#        BENCH_SIZES="5000 10000" to change the sizes, BENCH_ROUNDS=N (default 3)
#
# Needs ../shared/data beside the source tree. The questions are real:
# SQuAD 2.0 dev (6,078, English) and XQuAD (1,190 in each of 12 languages),
# 20,358 texts in a seeded shuffle; past those (the 50,000 set) a question is
# the first half of the words of one real question and the second half of
# another's, so that its words keep the real ones' frequencies. Each
# question has one relevant chunk id; the set names no corpus.
#
# Prints, per size and binary, the least CPU time over the rounds (user +
# system of the child, from getrusage, in microseconds), its ratio to the
# floor (`wc -l` on the same set file, least over the same rounds), the
# near-duplicate warnings found and the lines that mention a limit of the
# check; then whether the two binaries' warnings are the same.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
abs() { echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"; }
bins=("$(abs "${1:-$src/build/evalset}")")
[ -n "${2:-}" ] && bins+=("$(abs "$2")")
data=$src/../shared/data
[ -f "$data/squad2-dev/dev-v2.0.json" ] || { echo "bench/check.sh: no $data/squad2-dev (../shared/data)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$data" "$tmp" "${BENCH_SIZES:-5000 10000 20000 50000}" "${BENCH_ROUNDS:-3}" "${bins[@]}" <<'PY'
import glob, json, random, re, resource, subprocess, sys

data, tmp, sizes, rounds, bins = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split()], int(sys.argv[4]), sys.argv[5:]

texts = []
def read_squad(path):
    for art in json.load(open(path, encoding="utf-8"))["data"]:
        for p in art["paragraphs"]:
            for qa in p["qas"]:
                t = " ".join(qa["question"].split())
                if t:
                    texts.append(t)
read_squad(data + "/squad2-dev/dev-v2.0.json")
for f in sorted(glob.glob(data + "/xquad/xquad.*.json")):
    read_squad(f)
rng = random.Random(39)
rng.shuffle(texts)
mixed = []
def question(i):
    if i < len(texts):
        return texts[i]
    while len(mixed) <= i - len(texts):
        a, b = texts[rng.randrange(len(texts))].split(), texts[rng.randrange(len(texts))].split()
        mixed.append(" ".join(a[:len(a) // 2] + b[len(b) // 2:]))
    return mixed[i - len(texts)]
print(f"{len(texts)} real questions; sets of {', '.join(map(str, sizes))} questions; "
      f"least of {rounds} rounds, interleaved")

def cpu(cmd, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, "wb") as f:
        subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

dup = re.compile(r"near-duplicate of|duplicate of .* once normalised")
print(f"{'questions':>9} {'binary':<40} {'cpu s':>10} {'x floor':>9} {'floor s':>9} {'dups':>6}  limits")
for n in sizes:
    path = f"{tmp}/set-{n}.yaml"
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"evalset: 1\nname: bench{n}\nquestions:\n")
        for i in range(n):
            f.write(f"  - id: q-{i:06d}\n    text: {json.dumps(question(i), ensure_ascii=False)}\n"
                    f"    relevant: [c-{i % 997}]\n")
    floor, best, found = float("inf"), {b: float("inf") for b in bins}, {}
    for r in range(rounds):
        floor = min(floor, cpu(["wc", "-l", path], f"{tmp}/wc"))
        for k, b in enumerate(bins):
            out = f"{tmp}/out-{k}"
            best[b] = min(best[b], cpu([b, "check", path], out))
            lines = open(out, encoding="utf-8", errors="replace").read().splitlines()
            found[b] = ([l for l in lines if dup.search(l)],
                        [l.strip() for l in lines if "limit" in l or "pairwise" in l])
    for b in bins:
        d, lim = found[b]
        print(f"{n:>9} {b[-40:]:<40} {best[b]:>10.4f} {best[b] / max(floor, 1e-6):>9.1f} "
              f"{floor:>9.6f} {len(d):>6}  {'; '.join(lim) if lim else '-'}")
    if len(bins) == 2:
        same = found[bins[0]][0] == found[bins[1]][0]
        print(f"{n:>9} warnings of the two binaries: {'the same' if same else 'DIFFERENT'}")
PY
