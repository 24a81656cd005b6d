#!/usr/bin/env python3
"""regrade_spread.py: how much a regrade moves a score (issue 15). With a second process keeping one core busy, it
grades lab1 and lab4 N times each, for the reference and for a mid-tier submission (bench/mid_tier/<lab>/, about
half the performance points), with one fixed seed as a regrade does, and prints per submission the score list, min,
max, spread (max - min), how many scores equal the most common one, and the seconds one regrade took.

    python3 bench/regrade_spread.py                          # build/bin/grader, N = 20
    python3 bench/regrade_spread.py --grader /path/to/old/grader -n 20 --json before.json
    python3 bench/regrade_spread.py -n 2 --labs lab1         # a smoke run

--grader takes any grader binary (an older build gives the "before" figures); it is run with this repository as its
--root, so both see the same labs and submissions, unless --root names another course tree: an older grader may not
read today's lab.toml keys, so give it its own commit's tree (`git worktree add`); the submissions still come from
this repository. --kinds grades only some of the two. --no-load leaves the extra busy process out. Standard library
only.

    git worktree add /tmp/before 181d7ae^1     # main before the noise rule (issue 15); build it there, then
    python3 bench/regrade_spread.py --grader /tmp/before/build/bin/grader --root /tmp/before --kinds mid-tier

--old-grader (with --old-root, its tree) compares two graders interleaved: each regrade is graded by the old grader,
then by the new one, so both see the same minutes of the machine's load, and each gets its own summary.

    python3 bench/regrade_spread.py --old-grader /tmp/old/build/bin/grader --old-root /tmp/old --labs lab1 -n 10
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABS = {"lab1": "lab1-matvec", "lab4": "lab4-blocking"}
KINDS = {"reference": "reference", "mid-tier": os.path.join("bench", "mid_tier")}  # kind: folder of this repository
SEED = 15015  # one seed for every regrade: a regrade replays the student's inputs


def grade(grader, root, lab, submission, keep=None):
    argv = [grader, "--root", root, "grade", lab, "--submission", submission, "--format", "json", "--seed", str(SEED)]
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.monotonic() - start
    try:
        report = json.loads(done.stdout)
    except ValueError:
        sys.exit("%s exited %d without a JSON report:\n%s" % (" ".join(argv), done.returncode, done.stderr[-2000:]))
    if keep:
        with open(keep, "w") as f:
            f.write(done.stdout)
    within_noise = sum(1 for t in report["tests"] if t.get("measurement", {}).get("within_noise"))
    retries = sum(t.get("measurement", {}).get("noise_retries", 0) for t in report["tests"])
    return report["score"], seconds, within_noise, retries


def summarise(name, runs):
    scores = [round(r[0], 2) for r in runs]
    modal, identical = collections.Counter(scores).most_common(1)[0]
    seconds = [r[1] for r in runs]
    print("%s\n  scores    %s\n  min %.2f  max %.2f  spread %.2f  identical %d/%d (at %.2f)\n"
          "  seconds per regrade: median %.1f (min %.1f, max %.1f); items within noise: %d; measured again: %d times"
          % (name, " ".join("%.2f" % s for s in scores), min(scores), max(scores), max(scores) - min(scores), identical,
             len(scores), modal, statistics.median(seconds), min(seconds), max(seconds), sum(r[2] for r in runs),
             sum(r[3] for r in runs)))
    return {"scores": scores, "min": min(scores), "max": max(scores), "spread": max(scores) - min(scores),
            "identical": identical, "seconds": seconds}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grader", default=os.path.join(ROOT, "build", "bin", "grader"), help="the grader binary")
    parser.add_argument("-n", type=int, default=20, help="regrades per submission (default 20)")
    parser.add_argument("--labs", nargs="+", default=sorted(LABS), choices=sorted(LABS))
    parser.add_argument("--root", default=ROOT, help="the course tree the grader reads its labs from (default: this one)")
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS), help="which submissions to grade")
    parser.add_argument("--no-load", action="store_true", help="no busy process beside the gradings")
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--old-grader", help="an older grader, graded interleaved with --grader (old, new, old, ...)")
    parser.add_argument("--old-root", help="the older grader's course tree (default: --root)")
    parser.add_argument("--keep", help="keep every report, as <lab>-<kind>-<i>.json in this folder (to see which items moved)")
    args = parser.parse_args()

    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    load = None
    if not args.no_load:
        # One core kept busy for the whole run, as another user's job would.
        load = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    graders = [("", args.grader, args.root)]
    if args.old_grader:
        graders = [("old", args.old_grader, args.old_root or args.root), ("new", args.grader, args.root)]
    results = {}
    try:
        for lab in args.labs:
            folder = LABS[lab]
            for kind in args.kinds:
                submission = os.path.join(ROOT, KINDS[kind], folder)
                runs = {name: [] for name, _, _ in graders}
                for i in range(args.n):
                    for name, grader, root in graders:
                        keep = (os.path.join(args.keep, "%s-%s-%s%d.json" % (lab, kind, name + "-" if name else "", i + 1))
                                if args.keep else None)
                        runs[name].append(grade(grader, root, lab, submission, keep))
                        print("  %s %s %s%d/%d: %.2f points in %.1f s" % (lab, kind, name + " " if name else "", i + 1,
                                                                           args.n, runs[name][-1][0], runs[name][-1][1]),
                              file=sys.stderr, flush=True)
                for name, _, _ in graders:
                    label = "%s %s%s" % (lab, kind, " " + name if name else "")
                    results[label] = summarise("%s (%s)" % (label, os.path.relpath(submission, ROOT)), runs[name])
    finally:
        if load:
            load.kill()
            load.wait()
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"grader": args.grader, "root": args.root, "old_grader": args.old_grader, "n": args.n, "load": not args.no_load, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
