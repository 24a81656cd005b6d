#!/usr/bin/env python3
"""asan_e2e.py: lab 1 graded end to end by the grader built under AddressSanitizer and UBSan (label asan).

    python3 asan_e2e.py --grader build/bin/grader_asan --root . --work DIR

Correctness only (--quick), so that it costs seconds: the reference (exit 0, every correctness item passed), and
submissions that fail in the ways whose words the grader assembles (a wrong answer, a crash, an endless loop, a
build error, a forbidden call) in JSON, and the wrong answer in every other format too; then `grader list` and `grader --help`. A sanitizer
finding stops the grader with exit code 86 (tests/sanitize/CMakeLists.txt), which is never the expected one, and
its words on stderr fail the check too. Python's standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

SANITIZER_WORDS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "SUMMARY: UndefinedBehavior")
# submission (tests/submissions/lab1/<name>), expected exit code, a verdict the JSON report must hold
GRADINGS = [
    ("reference", 0, "passed"),
    ("wrong_answer", 1, "wrong_answer"),
    ("segfaults", 1, "crash"),
    ("loops_forever", 1, "time_limit"),
    ("does_not_compile", 1, "build_error"),
    ("forbidden_call", 1, "policy_refused"),
]


def run(cmd, env, expect):
    print("$ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    print(proc.stderr[-4000:] + "(exit %d)" % proc.returncode, flush=True)
    for words in SANITIZER_WORDS:
        if words in proc.stderr:
            raise SystemExit("FAILED: the sanitized grader reported %r:\n%s" % (words, proc.stderr))
    if proc.returncode != expect:
        raise SystemExit("FAILED: exit code %d, expected %d" % (proc.returncode, expect))
    return proc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    env = dict(os.environ, TMPDIR=args.work, NO_COLOR="1")
    for name, expect, verdict in GRADINGS:
        folder = (os.path.join(args.root, "reference", "lab1-matvec") if name == "reference"
                  else os.path.join(args.root, "tests", "submissions", "lab1", name))
        base = [args.grader, "--root", args.root, "lab1", "--submission", folder, "--quick", "--hidden"]
        report = json.loads(run(base + ["--format", "json"], env, expect).stdout)
        statuses = [report["status"]] + [t["status"] for t in report["tests"]]
        if verdict not in statuses:
            raise SystemExit("FAILED: %s: no %s among %r" % (name, verdict, statuses))
        if name == "wrong_answer":  # the other writers, once: each grading costs a compile
            for form in ("text", "gradescope", "html"):
                run(base + ["--format", form], env, expect)
    run([args.grader, "--root", args.root, "list"], env, 0)
    run([args.grader, "--help"], env, 0)
    shutil.rmtree(args.work, ignore_errors=True)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
