"""Order the CLI cases by what each adds to the edges of evalset reached.

usage: select.py COVER_DIR CASES_DIR > tests/cli/cover-order.txt

COVER_DIR holds, per case NAME, a folder NAME/ of edge bitmaps (one per
evalset process, tools/cover/guards.c) and NAME.time (the case's seconds).
The order is a greedy weighted set cover: first the cases that reach no
edge at all (they test something else, a script or a file left alone, and
are always run), then, one at a time, the case with the most edges not yet
reached per second of its time, until every edge the whole list reaches is
reached; then the cases that add none, by name. Each line is the case and
the percentage of all edges that it and the cases before it reach, rounded
down to 0.1: a build that runs cases "up to P%" runs each case up to the
first line at P or above (tests/cli/run.sh, EVALSET_CLI_COVER).
"""
import math
import os
import sys


def case_edges(folder):
    edges = 0
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as f:
            edges |= int.from_bytes(f.read(), "little")
    return edges


def main():
    cover, cases = sys.argv[1], sys.argv[2]
    names = sorted(n for n in os.listdir(cases) if os.path.isfile(os.path.join(cases, n, "cmd")))
    edges, secs = {}, {}
    for n in names:
        folder = os.path.join(cover, n)
        if not os.path.isdir(folder):
            sys.exit(f"select.py: no coverage for case '{n}'")
        edges[n] = case_edges(folder)
        with open(folder + ".time") as f:
            secs[n] = max(float(f.read()), 0.01)
    everything = 0
    for e in edges.values():
        everything |= e
    total = bin(everything).count("1")
    if not total:
        sys.exit("select.py: no case reached an edge (was the build made with tools/cover/guards.c?)")
    order = [(n, 0) for n in names if edges[n] == 0]
    left = [n for n in names if edges[n]]
    reached = 0
    while reached != everything:
        best, best_rate = None, 0.0
        for n in left:
            new = bin(edges[n] & ~reached).count("1")
            if new and new / secs[n] > best_rate:
                best, best_rate = n, new / secs[n]
        left.remove(best)
        reached |= edges[best]
        order.append((best, bin(reached).count("1")))
    order += [(n, total) for n in left]
    kept = len(order) - len(left)
    print("# The CLI cases in the order of what each adds to the edges of evalset")
    print("# reached (greedy, per second), with the percentage reached so far. A")
    print("# build that runs them up to P% (EVALSET_CLI_COVER=P, tests/cli/run.sh)")
    print("# runs each case up to the first line at P or above; a case not listed")
    print("# runs in every build. Made by tools/cover/cases.sh; not edited by hand.")
    print(f"# edges reached by all {len(names)} cases: {total}; {kept} cases reach them all, "
          f"in {sum(secs[n] for n, _ in order[:kept]):.0f} s of {sum(secs.values()):.0f} s "
          "(coverage build, one case at a time)")
    for n, r in order:
        print(f"{n} {math.floor(1000 * r / total) / 10:.1f}")


main()
