"""e2e_fresh.py: attacks on fresh inputs that the moved values alone do not stop. Registered into e2e.py's CHECKS
by checks(e2e), like e2e_replay.py.

    diffs-last-inputs   lab2's matmul_best keeps the last A, B and their product; when few elements changed it
                        updates the product in O(n) per element and spins to a tenth of its own full time, ten
                        times faster than the ijk baseline with correct outputs
                        (tests/submissions/lab2/diffs_last_inputs). The lab kit rotates the smaller input of
                        every fresh call as a whole, so each call changes far too much for the update, the
                        submission falls back to its ijk loop, and the timed item earns nothing.
"""
import os

LAB2_BEST = "best order: speedup over ijk, 256 x 1024 x 1024"


def check_diffs_last_inputs(e2e, grader, args):
    submission = os.path.join(args.root, "tests", "submissions", "lab2", "diffs_last_inputs")
    run = grader.run("grade", "lab2", "--submission", submission, "--only", LAB2_BEST, "--format", "json")
    report = run.json()
    print("seed %s" % report.get("seed"))
    tests = e2e.tests_by_name(report)
    for test in report["tests"]:
        if test["kind"] == "correctness" and test["status"] != "not_run":  # --only leaves the others out
            e2e.check(test["status"] == "passed", "correctness item %r is %r (%s)" % (
                test["name"], test["status"], test["details"]))
    best = tests[LAB2_BEST]
    measurement = best.get("measurement") or {}
    print("%s: %s, %r points, speedup %r (%s)" % (LAB2_BEST, best["status"], best["score"],
                                                   measurement.get("speedup"), best["details"]))
    e2e.check(best["status"] in ("below_threshold", "wrong_answer", "suspect"), "the item is %r: %s" % (
        best["status"], best["details"]))
    e2e.check(best["score"] == 0, "the incremental update bought %r points (speedup %r): fresh inputs let it reuse "
              "the last call's product" % (best["score"], measurement.get("speedup")))


def checks(e2e):
    return {"diffs-last-inputs": lambda grader, args: check_diffs_last_inputs(e2e, grader, args)}
