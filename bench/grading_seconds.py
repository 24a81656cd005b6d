#!/usr/bin/env python3
"""grading_seconds.py: where each second of a grading goes (issue 35). Grades each lab's reference, skeleton and
mid-tier submission (bench/mid_tier/<lab>/, where there is one) in full (--hidden, JSON report), warm, and prints
per grading its wall time and score, the report's `stage_seconds`, and per timed item what its measurement spent
(the report's `measurement.seconds`: setup, the interleaved rounds and how many, the judge's checks of the timed
calls, the compare rows with their expected outputs, the bound, the outside cross-check, the measurements again,
the counted calls of issue 33), and per grading the counted calls' seconds against its wall time.

With --old-grader (and --old-root, the course tree of its own commit) an older grader grades the same submissions
on the same machine in the same run, interleaved with this one, each with a calibration cache of its own; the
summary then gives each side's median seconds and their ratio. A grader that predates `measurement.seconds`
prints only its stages.

    python3 bench/grading_seconds.py --labs lab1                     # build/bin/grader, one grading of each
    python3 bench/grading_seconds.py --labs lab1 lab4 --rounds 3 \\
        --old-grader /work/wt/seed/build/bin/grader --old-root /work/wt/seed --json /tmp/seconds.json

GPU labs (lab5..lab8) need a machine with an NVIDIA GPU: bench/gpu/speed_check.sh runs this there, with both
graders carried. --parallel-warm builds every lab's harness and judge for both graders at once (nvcc is slow and the
device host has cores to spare), --share-calibration calibrates once with this grader and gives the older one a
copy (the calibration format is the same on both sides of a change that leaves calibration alone), and --budget
stops starting gradings once that many seconds have gone, so a device command stays within its limit.

On a machine shared with other work, give ratios within one run: absolute seconds move with the load. Standard
library only.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LABS = {"lab1": "lab1-matvec", "lab2": "lab2-loop-order", "lab3": "lab3-openmp", "lab4": "lab4-blocking",
        "lab5": "lab5-gemv-warps", "lab6": "lab6-streams", "lab7": "lab7-tiled-gemm", "lab8": "lab8-reductions"}
KINDS = {"reference": "reference", "skeleton": "skeletons", "mid-tier": os.path.join("bench", "mid_tier")}
SEED = 35035  # one seed for every grading: both graders time the same inputs
ITEM_FIELDS = ["setup", "rounds", "checks", "compare", "bound", "cross_check", "retries", "counters"]


def run_grader(grader, root, cache, argv):
    env = dict(os.environ, GRADER_CACHE=cache, NO_COLOR="1")
    return subprocess.run([grader, "--root", root] + argv, capture_output=True, text=True, env=env)


def grade(side, lab, submission):
    start = time.monotonic()
    done = run_grader(side["grader"], side["root"], side["cache"],
                      ["grade", lab, "--submission", submission, "--hidden", "--format", "json", "--seed", str(SEED)]
                      + side.get("extra", []))
    seconds = time.monotonic() - start
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return {"seconds": seconds, "error": "exit %d, no JSON report: %s" % (done.returncode, done.stderr[-500:])}
    items = []
    for test in report.get("tests", []):
        m = test.get("measurement")
        if test.get("kind") != "performance":
            continue
        item = {"name": test["name"], "status": test.get("status"), "score": test.get("score", 0)}
        if m:
            item["calls"] = m.get("candidate", {}).get("reps", 0)
            item["noise_retries"] = m.get("noise_retries", 0)
            item["outside_checked"] = m.get("outside_checked", False)
            item["metric_interval"] = m.get("metric_interval")
            item["spent"] = m.get("seconds")
        items.append(item)
    return {"seconds": seconds, "score": report.get("score", 0), "max_score": report.get("max_score", 0),
            "stages": {s["stage"]: s["seconds"] for s in report.get("stage_seconds", [])}, "items": items}


def show(label, g):
    if "error" in g:
        print("  %-26s %6.1f s  %s" % (label, g["seconds"], g["error"]))
        return
    stages = "  ".join("%s %.1f" % (name, sec) for name, sec in g["stages"].items())
    print("  %-26s %6.1f s  %6.1f/%g   stages: %s" % (label, g["seconds"], g["score"], g["max_score"], stages))
    for item in g["items"]:
        head = "      %-52s %-16s %5.1f pts" % (item["name"][:52], item["status"], item["score"])
        if "calls" not in item:
            print(head)
            continue
        head += "  %3d calls, %d again" % (item["calls"], item["noise_retries"])
        spent = item.get("spent")
        if spent:
            head += "%s  %s" % (" (stopped: decided)" if spent.get("stopped_early") else "",
                                "  ".join("%s %.2f" % (f, spent.get(f, 0)) for f in ITEM_FIELDS))
        print(head)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grader", default=os.path.join(ROOT, "build", "bin", "grader"), help="this grader")
    parser.add_argument("--old-grader", help="an older grader to compare, graded in the same run")
    parser.add_argument("--old-root", help="the older grader's course tree (default: this one)")
    parser.add_argument("--labs", nargs="+", default=["lab1", "lab4"], choices=sorted(LABS))
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=list(KINDS))
    parser.add_argument("--rounds", type=int, default=1, help="gradings of each submission by each grader")
    parser.add_argument("--out", default="/tmp/grading-seconds", help="the calibration caches go here")
    parser.add_argument("--json", help="also write every figure to this file")
    parser.add_argument("--parallel-warm", action="store_true", help="build every lab for both graders at once")
    parser.add_argument("--share-calibration", action="store_true",
                        help="calibrate with this grader only and copy its calibration to the older one's cache")
    parser.add_argument("--new-arg", action="append", default=[],
                        help="an option for this grader's gradings only (e.g. --new-arg=--no-counters)")
    parser.add_argument("--old-arg", action="append", default=[],
                        help="an option for the older grader's gradings only (e.g. --old-arg=--no-counters)")
    parser.add_argument("--budget", type=float, default=0, help="start no grading after this many seconds (0: no limit)")
    args = parser.parse_args()
    began = time.monotonic()

    sides = {"new": {"grader": os.path.abspath(args.grader), "root": ROOT, "cache": os.path.join(args.out, "cache-new"),
                     "extra": args.new_arg}}
    if args.old_grader:
        sides["old"] = {"grader": os.path.abspath(args.old_grader), "root": os.path.abspath(args.old_root or ROOT),
                        "cache": os.path.join(args.out, "cache-old"), "extra": args.old_arg}
    order = [s for s in ("old", "new") if s in sides]
    for name in order:
        os.makedirs(sides[name]["cache"], exist_ok=True)

    # Warm first (each lab's harness and judge built, untimed), calibrate after: a calibration wants the machine
    # quiet, and parallel builds are anything but.
    def warm_argv(side, lab):
        return [side["grader"], "--root", side["root"], "grade", lab, "--submission",
                os.path.join(side["root"], "reference", LABS[lab]), "--quick"]
    start = time.monotonic()
    if args.parallel_warm:
        warming = [subprocess.Popen(warm_argv(sides[name], lab), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=dict(os.environ, GRADER_CACHE=sides[name]["cache"], NO_COLOR="1"))
                   for lab in args.labs for name in order]
        for process in warming:
            process.wait()
    else:
        for lab in args.labs:
            for name in order:
                side = sides[name]
                run_grader(side["grader"], side["root"], side["cache"], warm_argv(side, lab)[3:])
    print("warm: %s built for %s in %.1f s" % (" ".join(args.labs), " and ".join(order), time.monotonic() - start),
          flush=True)
    for name in order:
        side = sides[name]
        if args.share_calibration and name != "new":
            continue
        start = time.monotonic()
        done = run_grader(side["grader"], side["root"], side["cache"], ["calibrate"])
        print("%s: calibrated in %.1f s (exit %d)" % (name, time.monotonic() - start, done.returncode), flush=True)
    if args.share_calibration and "old" in sides:
        shutil.copytree(os.path.join(sides["new"]["cache"], "calibration"),
                        os.path.join(sides["old"]["cache"], "calibration"), dirs_exist_ok=True)
        print("old: given a copy of new's calibration", flush=True)

    results = []
    out_of_time = False
    for lab in args.labs:
        folder = LABS[lab]
        kinds = [k for k in args.kinds if os.path.isdir(os.path.join(ROOT, KINDS[k], folder))]
        for kind in kinds:
            submission = os.path.join(ROOT, KINDS[kind], folder)
            print("%s %s (%s)" % (lab, kind, os.path.relpath(submission, ROOT)), flush=True)
            for round_ in range(args.rounds):
                if args.budget and time.monotonic() - began > args.budget:
                    out_of_time = True
                    print("  (budget of %.0f s spent: not graded)" % args.budget, flush=True)
                    break
                for name in order:
                    g = grade(sides[name], lab, submission)
                    show("%s, round %d" % (name, round_ + 1), g)
                    sys.stdout.flush()
                    results.append(dict(g, lab=lab, kind=kind, side=name, round=round_ + 1))

    print("\nmedian seconds per grading%s" % ("; new/old within this run" if "old" in sides else ""))
    for lab in args.labs:
        for kind in args.kinds:
            row = {name: [r["seconds"] for r in results if (r["lab"], r["kind"], r["side"]) == (lab, kind, name)]
                   for name in order}
            if not row["new"] or any(not row[name] for name in order):
                continue
            scores = {name: [r.get("score", 0) for r in results if (r["lab"], r["kind"], r["side"]) == (lab, kind, name)]
                      for name in order}
            line = "  %-5s %-10s" % (lab, kind)
            for name in order:
                line += "  %s %6.1f s (%s pts)" % (name, statistics.median(row[name]),
                                                  " ".join("%.1f" % s for s in scores[name]))
            if "old" in sides:
                line += "  new/old %.2f" % (statistics.median(row["new"]) / statistics.median(row["old"]))
            # The counted calls (issue 33): their seconds against the whole grading's, grading by grading.
            shares = ["%.2f of %.1f s" % (sum((i.get("spent") or {}).get("counters", 0) for i in r["items"]), r["seconds"])
                      for r in results if (r["lab"], r["kind"], r["side"]) == (lab, kind, "new") and "items" in r]
            if shares:
                line += "  counters %s" % ", ".join(shares)
            print(line)
    if out_of_time:
        print("  (the budget ran out: some gradings were left out, as marked above)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"sides": sides, "seed": SEED, "results": results}, f, indent=2)


if __name__ == "__main__":
    main()
