"""e2e_selftest.py: `grader selftest LAB`, with its verdict kept for the tests that need no grading of their own.
Registered into e2e.py's CHECKS by checks(e2e), like e2e_steps.py.

    selftest LAB        `grader selftest LAB --format json`: fails unless every reference earns full marks and every
                        skeleton no performance points (exit 0); a GPU lab on a machine without one is skipped (exit 5,
                        "not run"). With --record DIR, the verdict is left in DIR/LAB.json (removed first, so a
                        selftest that did not finish leaves none): e2e.steps.honest.reference.LAB reads it instead of
                        grading the reference in full a second time (e2e_steps.py).
"""
import json
import os


def record_path(args, lab):
    return os.path.join(args.record, lab + ".json") if args.record else None


def check_selftest(e2e, grader, args):
    path = record_path(args, args.name)
    if path:
        os.makedirs(args.record, exist_ok=True)
        if os.path.exists(path):
            os.remove(path)
    run = grader.run("selftest", args.name, "--format", "json", timeout=900)
    e2e.check(run.stdout.strip(), "selftest %s exited %d and printed no verdict" % (args.name, run.code))
    record = run.json()
    print(json.dumps(record, indent=1))
    problems = "; ".join(p for lab in record["labs"] for p in lab["problems"])
    if run.code == e2e.NOT_RUN:
        raise e2e.Skip("not run here: %s" % problems)
    e2e.check(run.code == e2e.ALL_PASSED, "selftest %s exited %d: %s" % (args.name, run.code, problems))
    if path:
        with open(path + ".part", "w") as f:
            json.dump(record, f, indent=1)
        os.replace(path + ".part", path)


def recorded_reference(e2e, args, lab):
    """The reference's figures from this run's selftest of `lab` (the e2e.selftest fixture), or None without one."""
    path = record_path(args, lab)
    if not path or not os.path.isfile(path):
        return None
    with open(path) as f:
        record = json.load(f)
    [verdict] = [v for v in record["labs"] if v["lab"] == lab]
    return verdict


def checks(e2e):
    return {"selftest": lambda grader, args: check_selftest(e2e, grader, args)}
