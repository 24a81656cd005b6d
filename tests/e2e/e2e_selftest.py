"""e2e_selftest.py: `grader selftest LAB`, with its verdict kept for the tests that need no grading of their own.
Registered into e2e.py's CHECKS by checks(e2e), like e2e_steps.py.

    selftest LAB        `grader selftest LAB --format json`: fails unless every reference earns full marks and every
                        skeleton no performance points (exit 0); a GPU lab on a machine without one is skipped (exit 5,
                        "not run"). With --record DIR, the verdict is left in DIR/LAB.json (removed first, so a
                        selftest that did not finish leaves none): e2e.steps.honest.reference.LAB reads it instead of
                        grading the reference in full a second time (e2e_steps.py).
    selftest-regrades-alone   `grader selftest` on the test-only lab90 (tests/labs/lab90-trust, in a temporary root)
                        whose skeleton is the honest submission (it earns the honest item's points every time) and
                        whose copy of lab.toml swaps the lying item for one whose top tier is out of every reach (1000x):
                        the reference falls short on that item alone and the skeleton, the same code, earns points on
                        both, so each is graded a second time, and that second grading times only the items in question,
                        one at a time (cmd_selftest.cpp, grade_again_when_quiet), read from --verbose's progress lines.
                        Both problems are still named.
"""
import json
import os
import re
import shutil


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


OUT_OF_REACH = "out of reach"


def gradings(progress):
    """--verbose's stderr cut into gradings, each (the folder staged, the performance items it mentions)."""
    runs = []
    for line in progress.splitlines():
        staged = re.match(r"\s*staging (.*)$", line)
        if staged:
            runs.append((staged.group(1), set()))
            continue
        item = re.match(r"\s*performance: (.*?): (setting up|timing|checking|disturbed)", line)
        if item and runs:
            runs[-1][1].add(item.group(1))
    return runs


def check_selftest_regrades_alone(e2e, grader, args):
    honest_item, lying_item = e2e.TRUST_HONEST, e2e.TRUST_LYING
    with e2e.trust_root(args) as root:
        lab = os.path.join(root, "labs", e2e.TRUST_LAB)
        toml = open(os.path.join(lab, "lab.toml")).read()
        lying = toml.index('[[performance]]\nname = "%s"' % lying_item)
        e2e.check(lying > toml.index('name = "%s"' % honest_item), "lab90's lab.toml no longer ends with the lying "
                  "item after the honest one; update e2e_selftest.py")
        # In place of the lying item: a first tier any honest timing reaches and a top one, the judge's own speed a
        # thousand times over, that none does (half the honest item's inputs, so that its timing is its own).
        toml = toml[:lying] + ('[[performance]]\nname = "%s"\nvariant = "eval"\nparams = { n = 262144, lie = 0 }\n'
                               'flops = "96*n"\nmetric = "speedup"\n'
                               'tiers = [ { at = 0.25, points = 5 }, { at = 1000, points = 10 } ]\n' % OUT_OF_REACH)
        # Fewer rounds than lab90's own: the check is about which items are graded, not their figures.
        toml = re.sub(r"(?m)^max_seconds = .*$", "max_seconds = 0.3", toml)
        open(os.path.join(lab, "lab.toml"), "w").write(toml)
        honest = os.path.join(args.root, "tests", "submissions", e2e.TRUST_LAB, "honest")
        for tree in ("reference", "skeletons"):
            shutil.copytree(honest, os.path.join(root, tree, e2e.TRUST_LAB))
        run = grader.run("selftest", e2e.TRUST_LAB, "--format", "json", "--verbose", root=root, timeout=600)
    e2e.check(run.code == e2e.GRADED_FAILURES, "selftest exited %d, expected %d (a reference short of full marks, a "
              "skeleton that earns points)" % (run.code, e2e.GRADED_FAILURES))
    [verdict] = run.json()["labs"]
    problems = "\n".join(verdict["problems"])
    print("problems:\n%s\nwarnings:\n%s" % (problems, "\n".join(verdict["warnings"])))
    e2e.check("reference: %s" % OUT_OF_REACH in problems, "the reference's shortfall is not named:\n" + problems)
    e2e.check("(in two gradings)" in problems and "skeleton: %s" % honest_item in problems,
              "the skeleton's points in two gradings are not named:\n" + problems)
    runs = gradings(run.stderr)
    print("gradings: %r" % [(os.path.basename(os.path.dirname(folder)), sorted(items)) for folder, items in runs])
    reference = [items for folder, items in runs if os.path.basename(os.path.dirname(folder)) == "reference"]
    skeleton = [items for folder, items in runs if os.path.basename(os.path.dirname(folder)) == "skeletons"]
    both = {honest_item, OUT_OF_REACH}
    e2e.check(reference == [both, {OUT_OF_REACH}], "the reference's gradings timed %r, expected both items and then "
              "the one short of full marks alone" % reference)
    # The skeleton, the same code, earns the first tier of the other item too: each is graded again, alone.
    e2e.check(skeleton == [both, {honest_item}, {OUT_OF_REACH}], "the skeleton's gradings timed %r, expected both "
              "items and then each that earned points alone" % skeleton)


def checks(e2e):
    return {"selftest": lambda grader, args: check_selftest(e2e, grader, args),
            "selftest-regrades-alone": lambda grader, args: check_selftest_regrades_alone(e2e, grader, args)}
