#!/usr/bin/env python3
"""class_throughput.py: how fast `grader batch` grades a class of a CPU lab, and what bounds it (issue 35).

Makes a class of N submissions of a CPU lab (default: 10 of lab1): copies of the reference, of the mid-tier submission
(bench/mid_tier/, where the lab has one) and of the skeleton, in turn. Grades it with `grader batch --jobs J` (timed,
all students timed, one batch seed), and prints the timing mode the batch chose (one at a time, work beside the
timing, parallel timing slots: batch/timing_plan.h, from `grader calibrate --interference`, run before the clock),
the wall time, students per minute and what a class of 100 would take at that pace. From the reports' `stage_seconds` it also says what bounds the batch: the seconds the class spent
timing (one student at a time, pipeline/timing_gate.h) against the wall time, and the rest of the work (builds,
correctness, expected outputs), which may overlap other students' work but, on main, never anyone's timing. When the
timing share is near 1, only a shorter timing or timing several students at once can make the batch faster; when
it is well under 1, the cores sat idle while one student was timed.

    python3 bench/class_throughput.py                                    # build/bin/grader, lab1, 10 students
    python3 bench/class_throughput.py --lab lab1 --students 20 --jobs 16 --grader .carry/bin/grader
    python3 bench/class_throughput.py --old-grader OLD --old-root OLD_ROOT   # an older grader first, same class
    python3 bench/class_throughput.py --old-grader OLD --old-root OLD_ROOT --repeat 4   # interleaved, medians

On a machine shared with other work, compare graders within one run: absolute seconds move with the load. Standard
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
LABS = {"lab1": "lab1-matvec", "lab2": "lab2-loop-order", "lab3": "lab3-openmp", "lab4": "lab4-blocking"}
SEED = 35036
MEASUREMENT_FIELDS = ("setup", "rounds", "checks", "compare", "bound", "cross_check", "retries")
WORK_STAGES = ("staging", "build", "inspect", "steps", "correctness")  # each with its wait for a turn (timing_gate.h)


def make_class(folder, lab, students):
    shutil.rmtree(folder, ignore_errors=True)
    sources = [("reference", os.path.join(ROOT, "reference", LABS[lab])),
               ("mid", os.path.join(ROOT, "bench", "mid_tier", LABS[lab])),
               ("skeleton", os.path.join(ROOT, "skeletons", LABS[lab]))]
    sources = [(kind, path) for kind, path in sources if os.path.isdir(path)]
    for i in range(students):
        kind, path = sources[i % len(sources)]
        shutil.copytree(path, os.path.join(folder, "s%03d-%s" % (i, kind)))


def grade_class(grader, root, lab, submissions, out, jobs, cache):
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, NO_COLOR="1", GRADER_CACHE=cache)
    # Warm and calibrated before the clock starts: the lab's one-time build and the calibration are no student's.
    subprocess.run([grader, "--root", root, "calibrate"], capture_output=True, env=env)
    # What may run beside a timing, measured once per machine (a grader without --interference says no: ignored).
    subprocess.run([grader, "--root", root, "calibrate", "--interference"], capture_output=True, env=env)
    subprocess.run([grader, "--root", root, "grade", lab, "--submission", os.path.join(root, "reference", LABS[lab]),
                    "--quick"], capture_output=True, env=env)
    argv = [grader, "--root", root, "batch", lab, submissions, "--out", out, "--jobs", str(jobs), "--seed", str(SEED),
            "--no-bundles"]
    print("$ " + " ".join(argv), flush=True)
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    if done.returncode not in (0, 1):
        print(done.stdout[-2000:] + done.stderr[-2000:])
    for line in done.stderr.splitlines():  # the batch's timing mode and why (batch/timing_plan.h)
        if line.startswith("timing: "):
            print("  " + line)
    reports = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".json") and not name.startswith("."):
            with open(os.path.join(out, name)) as f:
                reports.append(json.load(f))
                reports[-1]["_kind"] = name.rsplit(".", 1)[0].split("-", 1)[-1]  # s004-mid.json: mid
    return seconds, reports


def describe(label, seconds, reports, students):
    # The timing: what each timed item's measurement spent (its `measurement.seconds`), all of it in the student's
    # turn. A stage's seconds would also hold the wait for that turn.
    timing = work = 0.0
    by_kind = {}  # kind: [(timing seconds, of which retries, compare), ...] per student
    for report in reports:
        student = [0.0, 0.0, 0.0]
        for test in report.get("tests", []):
            spent = (test.get("measurement") or {}).get("seconds") or {}
            timing += sum(spent.get(field, 0) for field in MEASUREMENT_FIELDS)
            student[0] += sum(spent.get(field, 0) for field in MEASUREMENT_FIELDS)
            student[1] += spent.get("retries", 0)
            student[2] += spent.get("compare", 0)
        by_kind.setdefault(report.get("_kind", "?"), []).append(student)
        work += sum(s["seconds"] for s in report.get("stage_seconds", []) if s["stage"].startswith(WORK_STAGES))
    scores = sorted("%.0f" % r.get("score", 0) for r in reports)
    print("%s: %d of %d students graded in %.1f s: %.1f students/min, 100 students in ~%.1f min" %
          (label, len(reports), students, seconds, 60 * len(reports) / seconds if seconds else 0,
           100 * seconds / max(1, len(reports)) / 60))
    print("  timing %.1f s (one at a time: %.0f%% of the wall time); the other stages %.1f s (builds and correctness, "
          "with their waits for a turn beside no timing), "
          "scores %s" % (timing, 100 * timing / seconds if seconds else 0, work, " ".join(scores)))
    for kind, students in sorted(by_kind.items()):
        scores_of_kind = sorted(r.get("score", 0) for r in reports if r.get("_kind") == kind)
        print("  %-10s %3d students: timing median %.1f s (sum %.0f), of it retries median %.1f (sum %.0f), compare rows "
              "median %.1f; scores %.1f to %.1f" % (kind, len(students), statistics.median(s[0] for s in students),
                                                      sum(s[0] for s in students), statistics.median(s[1] for s in students),
                                                      sum(s[1] for s in students), statistics.median(s[2] for s in students),
                                                      scores_of_kind[0], scores_of_kind[-1]))
    return {"seconds": round(seconds, 1), "graded": len(reports), "timing_seconds": round(timing, 1),
            "work_seconds": round(work, 1),
            "kind_timing": {kind: round(statistics.median(s[0] for s in students), 2) for kind, students in by_kind.items()}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grader", default=os.path.join(ROOT, "build", "bin", "grader"))
    parser.add_argument("--old-grader", help="an older grader, which grades the same class first")
    parser.add_argument("--old-root", help="the older grader's course tree (default: this one)")
    parser.add_argument("--lab", default="lab1", choices=sorted(LABS))
    parser.add_argument("--students", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--out", default="/tmp/class-throughput")
    parser.add_argument("--repeat", type=int, default=1,
                        help="grade the class this many times with each grader, interleaved (old, new, new, old, ...), "
                             "and print the medians: on a shared machine the load moves between runs")
    args = parser.parse_args()

    print("cpu: %s x %d" % (next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")),
                                 "?"), os.cpu_count() or 0))
    submissions = os.path.join(args.out, "class")
    make_class(submissions, args.lab, args.students)
    sides = []
    if args.old_grader:
        sides.append(("old", os.path.abspath(args.old_grader), os.path.abspath(args.old_root or ROOT)))
    sides.append(("new", os.path.abspath(args.grader), ROOT))
    runs = {name: [] for name, _, _ in sides}
    for repeat in range(args.repeat):
        # Old first in odd runs, new first in even ones: neither grader always meets the same part of the load.
        for name, grader, root in (sides if repeat % 2 == 0 else sides[::-1]):
            seconds, reports = grade_class(grader, root, args.lab, submissions, os.path.join(args.out, name), args.jobs,
                                           os.path.join(args.out, "cache-" + name))
            runs[name].append(describe(name, seconds, reports, args.students))
    summary = {name: results[-1] for name, results in runs.items()}
    if args.repeat > 1:
        for name, results in runs.items():
            kinds = sorted(results[0]["kind_timing"])
            print("%s, median of %d runs: wall %.1f s (runs: %s); timing per student, medians of the runs' medians: %s" %
                  (name, len(results), statistics.median(r["seconds"] for r in results),
                   ", ".join("%.1f" % r["seconds"] for r in results),
                   ", ".join("%s %.2f s" % (kind, statistics.median(r["kind_timing"][kind] for r in results))
                             for kind in kinds)))
            summary[name] = {"runs": results, "median_seconds": statistics.median(r["seconds"] for r in results)}
    if len(sides) == 2:
        old = statistics.median(r["seconds"] for r in runs["old"])
        if old:
            print("new/old wall time (medians): %.2f" % (statistics.median(r["seconds"] for r in runs["new"]) / old))
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
