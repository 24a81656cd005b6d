#!/usr/bin/env python3
"""classmates_e2e.py: one student's code never changes a classmate's grade (issue 31), end to end.

    python3 classmates_e2e.py --grader build/bin/grader --root . --work DIR

A temporary root holds a copy of the test-only lab tests/labs/lab90-trust with this test's own lab.toml: eight
small correctness cases, one timed item whose tier (a quarter of the judge's speed) any honest code reaches on any
machine, and a wall-clock limit of LIMIT seconds, small so that the test is short (the lab's own limits are not
touched). One class is graded twice with the same batch seed:

  beside   1-gus (spends 1.1 s on each small case, then loops forever on the timed item's large input), 2-zoe
           (honest), 3-carl (crashes), 4-meg (eats memory until the allocation fails), 5-ann (honest, other code),
           --jobs 2: zoe finishes her correctness cases long before gus and waits for the timing turn while gus
           works and times. A grading's worker limits once ran from the worker's start, so zoe's judge was charged
           gus's minutes and zoe got `internal_error` ("the judge failed: ... the wall-clock limit").
  alone    zoe and ann only, --jobs 1: each graded with nobody else running.

zoe and ann must get exactly the same grade in both (status, score, every item's verdict and points); the
misbehaving students get their own verdicts; the class has no internal error. Then, in the same folder:

  --gradescope added on a resume writes every earlier student's results.json from their stored report, grading
  nobody again (issue 31, item 4);
  a lab whose judge fails in one item (lab90 again, in a root of its own, with a correctness case its judge fails
  on) gives that student no Canvas cell, a "Needs a person" line in summary.md, JSON status `internal_error` and
  exit code 4 (item 3).

Exit 0 when every check holds, 1 (with the reason) otherwise. Python's standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

# [limits] wall_seconds of the test's lab: gus's endless loop costs this much, not the lab's 60 s. Halved from 20 s
# with gus's cases (2.2 s to 1.1 s): his slow cases still take as much of it (88%), and zoe still waits past it.
LIMIT = 10
SEED = "31031"
TIMED = "honest timing"

LAB_TOML = """# classmates_e2e.py's copy of tests/labs/lab90-trust: the same harness and judge, this test's limits and items.
[lab]
id = "{id}"
slug = "{slug}"
title = "Test fixture: classmates graded side by side (tests/batch/classmates_e2e.py)"
gpu = false

[build]
language = "c++"
student_files = ["trust.cpp"]
headers = ["trust.h"]
harness = ["harness.cpp"]
baseline = ["baseline.cpp"]
flags = ["-O2"]
max_file_kb = 64

[limits]
wall_seconds = {limit}
cpu_seconds = {cpu}
memory_mb = 512
output_kb = 64
processes = 16

[timing]
warmup = 1
min_reps = 5
max_reps = 20
max_seconds = 1.0
target_noise = 0.05
# Not measured again on a busy machine (CI runs tests side by side): the item's one tier is a quarter of the judge's
# speed, which no load takes from honest code, and the timing stays well inside the wall-clock limit.
noise_retry_seconds = 0

[tolerance]
rtol = 1e-12
atol = 1e-12

[[correctness]]
name = "eval"
points = 10
variants = ["eval"]
cases = [
{cases}
]
{extra}
[[performance]]
name = "{timed}"
variant = "eval"
params = {{ n = 524288, lie = 0 }}
flops = "96*n"
metric = "speedup"
tiers = [ {{ at = 0.25, points = 10 }} ]
"""

CASES = ",\n".join('  {{ name = "n {0}", params = {{ n = {0} }} }}'.format(n) for n in (1, 7, 100, 1000, 2000, 3000, 4099, 5000))

# A correctness case on which the judge fails (lab90's harness throws in the judge for judge_fails = 1): the lab's
# failure, never the student's. An n of 0 no longer reaches a grading: lab.toml's sizes are checked at load.
BROKEN_JUDGE = """
[[correctness]]
name = "broken judge"
points = 10
variants = ["eval"]
cases = [ { name = "judge fails", params = { n = 100, judge_fails = 1 } } ]
"""

HONEST = """#include "trust.h"
void trust_eval(const double* x, double* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = trust_p(x[i]);
}
"""

# Another honest student: the same function, two elements a step.
HONEST_TOO = """#include "trust.h"
void trust_eval(const double* x, double* y, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 1 < n; i += 2) {
    y[i] = trust_p(x[i]);
    y[i + 1] = trust_p(x[i + 1]);
  }
  for (; i < n; ++i) y[i] = trust_p(x[i]);
}
"""

# Correct and slow on the small cases (1.1 s each by the clock, inside the 5 s a correctness run may take, and 8.8 s
# in all, inside the worker's LIMIT of 10 s), then an endless loop on the timed item's large input.
HANGS = """#include <chrono>
#include "trust.h"
void trust_eval(const double* x, double* y, std::int64_t n) {
  volatile std::int64_t spin = 0;
  if (n > 100000) for (;;) spin = spin + 1;
  const auto began = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - began < std::chrono::milliseconds(1100)) spin = spin + 1;
  for (std::int64_t i = 0; i < n; ++i) y[i] = trust_p(x[i]);
}
"""

CRASHES = """#include "trust.h"
void trust_eval(const double* x, double* y, std::int64_t n) {
  volatile double* nowhere = nullptr;
  if (n > 5) *nowhere = x[0];
  for (std::int64_t i = 0; i < n; ++i) y[i] = trust_p(x[i]);
}
"""

# Takes 64 MB at a time and writes every page until the allocation fails (the lab's 512 MB).
EATS_MEMORY = """#include <cstring>
#include <vector>
#include "trust.h"
void trust_eval(const double* x, double* y, std::int64_t n) {
  static std::vector<char*> kept;
  for (;;) {
    char* block = new char[64 << 20];
    std::memset(block, 1, 64 << 20);
    kept.push_back(block);
  }
  for (std::int64_t i = 0; i < n; ++i) y[i] = trust_p(x[i]);
}
"""

CLASS = {"1-gus": HANGS, "2-zoe": HONEST, "3-carl": CRASHES, "4-meg": EATS_MEMORY, "5-ann": HONEST_TOO}
HONEST_IDS = ["2-zoe", "5-ann"]
EXPECTED_MISBEHAVING = {"3-carl": "crash", "4-meg": "memory_limit"}


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def load(path):
    with open(path) as f:
        return json.load(f)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_root(source_root, root, extra=""):
    """root/labs/lab90-trust: the class's lab, or with extra=BROKEN_JUDGE a judge that fails in one item. Both are
    lab90-trust, with the same harness and flags, in roots of their own: one lab build in the cache serves both (a lab
    of another name, lab91-broken once, was built again, 20 to 60 s of this test)."""
    lab90 = os.path.join(source_root, "tests", "labs", "lab90-trust")
    folder = os.path.join(root, "labs", "lab90-trust")
    os.makedirs(folder)
    for name in ("trust.h", "harness.cpp", "baseline.cpp"):
        shutil.copy(os.path.join(lab90, name), folder)
    write(os.path.join(folder, "lab.toml"),
          LAB_TOML.format(id="lab90", slug="trust", limit=LIMIT, cpu=2 * LIMIT, cases=CASES, extra=extra, timed=TIMED))
    shutil.copytree(os.path.join(source_root, "grader", "labkit"), os.path.join(root, "grader", "labkit"))


def make_class(folder, students):
    for sid in students:
        write(os.path.join(folder, sid, "trust.cpp"), CLASS.get(sid, HONEST))


class Grader:
    def __init__(self, grader, root, tmp):
        self.grader, self.root, self.tmp = grader, root, tmp

    def batch(self, lab, *args, expect):
        cmd = [self.grader, "--root", self.root, "batch", lab] + [str(a) for a in args]
        print("$ " + " ".join(cmd), flush=True)
        began = time.monotonic()
        env = dict(os.environ, TMPDIR=self.tmp, NO_COLOR="1")
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        print(proc.stdout + proc.stderr + "(exit %d, %.1f s)" % (proc.returncode, time.monotonic() - began), flush=True)
        check(proc.returncode == expect, "exit code %d, expected %d" % (proc.returncode, expect))
        return proc


def grade_of(report):
    """What a classmate must never change: the status, the score, every item's verdict and points."""
    return {"status": report["status"], "score": report["score"],
            "tests": [(t["name"], t["status"], t["score"]) for t in report["tests"]]}


def check_classmates(grader, work):
    beside, alone = os.path.join(work, "beside"), os.path.join(work, "alone")
    make_class(os.path.join(beside, "class"), sorted(CLASS))
    make_class(os.path.join(alone, "class"), HONEST_IDS)
    beside_out, alone_out = os.path.join(beside, "out"), os.path.join(alone, "out")
    grader.batch("lab90", os.path.join(beside, "class"), "--out", beside_out, "--jobs", "2", "--seed", SEED, "--no-bundles",
                 expect=0)
    grader.batch("lab90", os.path.join(alone, "class"), "--out", alone_out, "--jobs", "1", "--seed", SEED, "--no-bundles",
                 "--gradescope", expect=0)

    for sid in HONEST_IDS:
        got, want = load(os.path.join(beside_out, sid + ".json")), load(os.path.join(alone_out, sid + ".json"))
        check(got["seed"] == want["seed"], "%s: seed %s beside the class, %s alone" % (sid, got["seed"], want["seed"]))
        check(grade_of(got) == grade_of(want),
              "%s's grade changed beside the class:\n  beside %r\n  alone  %r" % (sid, grade_of(got), grade_of(want)))
        check(want["score"] == 20 and want["status"] == "graded", "%s alone: %s, %s / 20" % (sid, want["status"], want["score"]))
    gus = load(os.path.join(beside_out, "1-gus.json"))
    verdicts = {t["name"]: t["status"] for t in gus["tests"]}
    # gus's loop ends in his own timing (time_limit), or his slow cases already overran his own worker's limit.
    check("time_limit" in verdicts.values(), "1-gus: no time_limit among %r" % verdicts)
    check(gus["score"] <= 10, "1-gus scored %s" % gus["score"])
    for sid, verdict in EXPECTED_MISBEHAVING.items():
        report = load(os.path.join(beside_out, sid + ".json"))
        check(report["tests"][0]["status"] == verdict, "%s: eval is %s, expected %s" % (sid, report["tests"][0]["status"], verdict))
        check(report["tests"][1]["status"] == "not_run", "%s: a version that failed correctness was timed: %r" % (sid, report["tests"][1]))
    return beside, alone_out


def check_gradescope_on_resume(grader, beside, alone_out):
    out = os.path.join(beside, "out")
    reports = {sid: open(os.path.join(out, sid + ".json")).read() for sid in CLASS}
    proc = grader.batch("lab90", os.path.join(beside, "class"), "--out", out, "--gradescope", "--no-bundles", expect=0)
    check("5 already graded; grading 0" in proc.stderr, "the resume graded students again")
    check("wrote the Gradescope files of 5 student(s) graded earlier" in proc.stderr, "the resume did not say it wrote them")
    for sid in CLASS:
        check(open(os.path.join(out, sid + ".json")).read() == reports[sid], "%s.json changed: graded again?" % sid)
        results = load(os.path.join(out, "gradescope", sid + ".results.json"))
        report = json.loads(reports[sid])
        check(results["score"] == report["score"], "%s: results.json scores %s, the report %s" % (sid, results["score"], report["score"]))
        check([(t["name"], t["score"]) for t in results["tests"]] == [(t["name"], t["score"]) for t in report["tests"]],
              "%s: results.json's tests are not the report's" % sid)
    # The honest students' files are what a grading with --gradescope from the start wrote, but for the run's time.
    for sid in HONEST_IDS:
        backfilled = load(os.path.join(out, "gradescope", sid + ".results.json"))
        direct = load(os.path.join(alone_out, "gradescope", sid + ".results.json"))
        for results in (backfilled, direct):
            for timed in ("execution_time", "leaderboard"):  # the run's time and its figures
                results.pop(timed, None)
            results["output"] = results["output"].split("\nwarning:")[0]
            for test in results["tests"]:
                test["output"] = test["output"].split(": ")[0]  # the verdict; details hold timings
        check(backfilled == direct, "%s: the backfilled results.json differs from a grading's:\n%r\n%r" % (sid, backfilled, direct))


def check_internal_error(grader, work):
    folder = os.path.join(work, "broken")
    make_class(os.path.join(folder, "class"), ["2-zoe"])
    roster = os.path.join(folder, "roster.csv")
    write(roster, "Student,ID,SIS User ID,SIS Login ID,Section\r\n    Points Possible,,,,\r\n"
                  "\"Zoe, Z\",1002,2-zoe,2-zoe,A\r\n")
    out = os.path.join(folder, "out")
    grader.batch("lab90", os.path.join(folder, "class"), "--out", out, "--quick", "--canvas", roster, "--no-bundles", expect=4)
    report = load(os.path.join(out, "2-zoe.json"))
    check(report["status"] == "internal_error", "status %r, expected internal_error" % report["status"])
    check("broken judge" in report["status_details"], "status_details %r does not name the item" % report["status_details"])
    check(report["tests"][0]["status"] == "passed" and report["tests"][0]["score"] == 10,
          "the item the grader did not fail on lost its points: %r" % report["tests"][0])
    summary = open(os.path.join(out, "summary.md")).read()
    check("## Needs a person" in summary and "internal error (not the student's fault" in summary and "2-zoe" in summary,
          "summary.md does not list 2-zoe under Needs a person:\n" + summary)
    canvas = open(os.path.join(out, "canvas.csv")).read().splitlines()
    zoe = [line for line in canvas if line.startswith('"Zoe, Z"')]
    check(len(zoe) == 1 and zoe[0].endswith(","), "canvas.csv gives zoe a cell: %r" % zoe)
    grades = open(os.path.join(out, "grades.csv")).read()
    check(",internal_error," in grades, "grades.csv's status is not internal_error:\n" + grades)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    root, broken_root, tmp = os.path.join(work, "root"), os.path.join(work, "broken-root"), os.path.join(work, "tmp")
    os.makedirs(tmp)
    make_root(args.root, root)
    make_root(args.root, broken_root, extra=BROKEN_JUDGE)
    grader = Grader(args.grader, root, tmp)
    try:
        beside, alone_out = check_classmates(grader, work)
        check_gradescope_on_resume(grader, beside, alone_out)
        check_internal_error(Grader(args.grader, broken_root, tmp), work)
    except (CheckFailed, subprocess.TimeoutExpired) as failure:
        print("FAILED: %s" % failure, flush=True)
        return 1
    print("ok", flush=True)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
