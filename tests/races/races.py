#!/usr/bin/env python3
"""Lab 3's race detectors catch the data races students write.

`races.py --grader G --root R SUBMISSION ITEM [ITEM...]` grades tests/submissions/lab3/SUBMISSION for correctness
(--quick) and checks that each correctness item ITEM fails with a wrong answer (or a crash: a shared index
can also run off the end of an array) and earns nothing, while lab3's other race detectors pass: a race
costs the student the item it is in, and only that. Standard library only; exit 0 on success, 1 with the
reason otherwise.
"""
import argparse
import json
import os
import subprocess
import sys

DETECTED = {"wrong_answer", "crash"}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("submission")
    parser.add_argument("items", nargs="+")
    args = parser.parse_args()

    folder = os.path.join(args.root, "tests", "submissions", "lab3", args.submission)
    argv = [args.grader, "--root", args.root, "grade", "lab3", "--submission", folder, "--quick", "--format", "json"]
    completed = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(completed.stdout)
    except json.JSONDecodeError:
        fail("no JSON report (exit %d): %s" % (completed.returncode, completed.stderr[-2000:]))
    if report.get("status") not in (None, "graded"):
        fail("the submission did not build and run: %s %s" % (report.get("status"), report.get("details", "")))

    tests = {t["name"]: t for t in report["tests"]}
    for item in args.items:
        if item not in tests:
            fail("no item %r in lab3's report; items: %s" % (item, sorted(tests)))
        raced = tests[item]
        if raced["status"] not in DETECTED or raced["score"] != 0:
            fail("%r was not caught: %s, %s points (%s)" % (item, raced["status"], raced["score"], raced.get("details")))
        caught = sum(1 for c in raced["cases"] if c["status"] in DETECTED)
        print("ok: %s: %r failed (%s) in %d of %d cases" % (args.submission, item, raced["status"], caught,
                                                           len(raced["cases"])))
    for name, test in tests.items():
        if "race detector" in name and name not in args.items and test["status"] != "passed":
            fail("%r failed too, but that code has no race: %s (%s)" % (name, test["status"], test.get("details")))
    print("ok: the other race detectors passed")

if __name__ == "__main__":
    main()
