"""e2e_steps.py: steps that are not what their names say (issue 34, lab.toml [steps]). Registered into e2e.py's
CHECKS by checks(e2e), like e2e_fresh.py.

    steps LAB/NAME      grades tests/submissions/LAB/NAME: the steps STEPS_EXPECTED names lose every item that
                        grades them with not_this_step (details matching its pattern), and no other step does.
                        `timed` ones are graded in full: only the timing band catches them; the others with
                        --quick, since the structure and the kernels' facts need no timing (nor a GPU: a GPU lab
                        graded here is built, its facts read, and not run, exit 5).
    steps-honest LAB/DIR  grades an honest submission (reference/LAB, bench/mid_tier/LAB, relative to the root): no
                        step is caught, and, for a reference, nothing short of full marks is a step's. Graded only
                        as far as a step can be caught (cheapest_grading): --quick where no step has a judge to be
                        timed against, --only the one item whose grading times every step, else in full. A
                        reference whose selftest left its verdict (--record, e2e_selftest.py) is not graded again:
                        full marks there mean no item lost its points to a step. A GPU lab without a GPU is built
                        and its steps' facts read, not run.
    steps-gpu NAME      on a GPU (skipped without one): lab 8's reference graded in full keeps full marks, and
                        tests/submissions/lab8/NAME graded in full loses the steps STEPS_EXPECTED names.
"""
import os
import re
import subprocess
import tomllib

import e2e_selftest

# submission -> (graded in full?, the variants caught, what the details of their items say)
STEPS_EXPECTED = {
    "lab2/forwards_to_best": (False, ["ijk", "jik", "jki", "kij", "kji"], r"calls matmul_best"),
    # The known hole, closed in the reader (tests/unit/test_step_routes.cpp has every route): a table of functions
    # in data, and an address the best function stores at run time for ikj to branch through.
    "lab2/reaches_best_through_table": (False, ["kij"], r"holds the address of matmul_best in its data"),
    "lab2/stores_best_at_run_time": (False, ["ikj"], r"branches through a pointer|calls matmul_best"),
    "lab2/copies_best_inline": (True, ["ijk", "jik", "jki", "kji"], r"faster than the judge's own|same code"),
    "lab4/blocked_calls_register": (False, ["blocked"], r"calls matmul_register_blocked"),
    "lab4/blocked_is_register_copy": (True, ["blocked"], r"faster than the judge's own cache_blocked"),
    "lab8/forwards_to_best": (False, ["interleaved_divergent", "interleaved", "sequential", "first_add",
                                      "unroll_last_warp", "warp_shuffle", "atomic"],
                              # nvcc's host compiler inlines the call: what is left is 07's kernel in each version
                              r"calls reduce_multi_element|same kernels as reduce_multi_element|warp shuffles"),
    "lab8/launches_best_kernel": (False, ["sequential", "warp_shuffle"], r"same kernels|shuffles"),
}


def lab_dir(root, lab):
    for name in os.listdir(os.path.join(root, "labs")):
        if name.split("-")[0] == lab:
            return os.path.join(root, "labs", name)
    raise AssertionError("no lab %s under %s" % (lab, root))


def load_spec(root, lab):
    with open(os.path.join(lab_dir(root, lab), "lab.toml"), "rb") as f:
        return tomllib.load(f)


def items_by_variant(root, lab):
    """item name -> the variants it grades, from the lab's lab.toml."""
    spec = load_spec(root, lab)
    items = {item["name"]: list(item["variants"]) for item in spec.get("correctness", [])}
    items.update({item["name"]: [item["variant"]] for item in spec.get("performance", [])})
    return items, [step["variant"] for step in spec.get("steps", {}).get("step", [])]


def cheapest_grading(root, lab):
    """The grader's options that still let every step of `lab` be caught. A step loses only the items that grade its
    variant (steps/step_verdicts.cpp); its rules on the compiled code run in any grading, --quick too; its timing
    band runs only in a timed grading, for a step with a judge and points at stake (pipeline/steps.cpp). So: no
    judge, --quick; one performance item whose --only grading holds an item of every step (it and the correctness
    items it needs, pipeline/correctness.cpp), --only that item; else nothing left out."""
    spec = load_spec(root, lab)
    steps = spec.get("steps", {}).get("step", [])
    if not any(step.get("judge") for step in steps):
        return ["--quick"]
    variants = {step["variant"] for step in steps}
    for item in spec.get("performance", []):
        needed = item.get("requires")
        graded = {item["variant"]}
        for correctness in spec.get("correctness", []):
            if (correctness["name"] in needed) if needed else (item["variant"] in correctness["variants"]):
                graded.update(correctness["variants"])
        if variants <= graded:
            return ["--only", item["name"]]
    return []


def check_every_step_graded(e2e, report, root, lab):
    """Each step's items were graded (not left out by --only): a step could have been caught in this grading."""
    items, steps = items_by_variant(root, lab)
    for variant in steps:
        e2e.check(any(variant in items.get(t["name"], []) and t["max_score"] > 0 for t in report["tests"]),
                  "no item of step %r was graded: this grading could not catch it" % variant)


def check_steps_caught(e2e, report, root, lab, caught, pattern):
    items, steps = items_by_variant(root, lab)
    for test in report["tests"]:
        variants = items.get(test["name"], [])
        print("%-55s %-14s %5s  %s" % (test["name"][:55], test["status"], test["score"], test["details"][:160]))
        should = any(v in caught for v in variants)
        if should and test["max_score"] > 0:
            e2e.check(test["status"] == "not_this_step" and test["score"] == 0,
                      "%r (a step the submission swapped) is %r with %r points" % (test["name"], test["status"], test["score"]))
            e2e.check(re.search(pattern, test["details"]), "%r's details do not say %r: %s" % (
                test["name"], pattern, test["details"]))
        elif not should:
            e2e.check(test["status"] != "not_this_step", "%r (honest) is not_this_step: %s" % (test["name"], test["details"]))
    for variant in caught:
        e2e.check(variant in steps, "the expectation names %r, which lab.toml does not declare a step" % variant)


def grade(e2e, grader, args, lab, submission, timed):
    """timed: True (in full), False (--quick), or the options cheapest_grading chose (a list)."""
    argv = ["grade", lab, "--submission", submission, "--format", "json"]
    if timed is False:
        argv.append("--quick")
    elif timed is not True:
        argv += timed
    run = grader.run(*argv)
    report = run.json()
    print("seed %s, %s s" % (report.get("seed"), report.get("wall_seconds")))
    return run, report


def check_steps(e2e, grader, args):
    timed, caught, pattern = STEPS_EXPECTED[args.name]
    lab = args.name.split("/")[0]
    submission = os.path.join(args.root, "tests", "submissions", args.name)
    # Only the timing band catches a timed one: graded as far as that band (and every step's items) goes.
    options = False
    if timed:
        cheapest = cheapest_grading(args.root, lab)
        options = cheapest if cheapest[:1] == ["--only"] else True
    run, report = grade(e2e, grader, args, lab, submission, options)
    e2e.check(report["status"] in ("graded", "not_run"), "the submission did not grade: %r %s" % (
        report["status"], report.get("details")))
    if options not in (True, False):
        check_every_step_graded(e2e, report, args.root, lab)
    check_steps_caught(e2e, report, args.root, lab, caught, pattern)


def check_steps_honest(e2e, grader, args):
    lab = args.name.split("/")[-1].split("-")[0]
    if args.name.startswith("reference/"):
        selftest = e2e_selftest.recorded_reference(e2e, args, os.path.basename(args.name))
        if selftest is not None:
            # The selftest graded this reference in full, hidden items too, and passed only at full marks: an item
            # a step had caught would have lost its points (a second grading is only for timing shortfalls).
            print("the selftest's reference: %r of %r, %s" % (selftest["reference_score"], selftest["max_score"],
                                                              "ok" if selftest["ok"] else selftest["problems"]))
            e2e.check(selftest["reference_score"] + 1e-9 >= selftest["max_score"] > 0,
                      "the reference lost points in its selftest: %r of %r: %s" % (
                          selftest["reference_score"], selftest["max_score"], selftest["problems"]))
            return
    # A reference without a selftest's verdict is graded in full, for its full marks too.
    options = True if args.name.startswith("reference/") else cheapest_grading(args.root, lab) or True
    run, report = grade(e2e, grader, args, lab, os.path.join(args.root, args.name), timed=options)
    if options is not True:
        check_every_step_graded(e2e, report, args.root, lab)
    check_steps_caught(e2e, report, args.root, lab, [], r".")
    if args.name.startswith("reference/") and report["status"] != "not_run":  # not_run: a GPU lab, no GPU here
        e2e.check(report["score"] == report["max_score"] or all(
            t["status"] in ("passed", "below_threshold") or (t["status"] == "not_run" and t["max_score"] == 0)
            for t in report["tests"]),
            "the reference lost points other than to timing: %r of %r" % (report["score"], report["max_score"]))


def has_gpu():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def check_steps_gpu(e2e, grader, args):
    if not has_gpu():
        raise e2e.Skip("no NVIDIA GPU here (nvidia-smi -L): lab 8's steps are timed only on a GPU")
    run, reference = grade(e2e, grader, args, "lab8", os.path.join(args.root, "reference", "lab8-reductions"), True)
    check_steps_caught(e2e, reference, args.root, "lab8", [], r".")
    print("reference: %r of %r" % (reference["score"], reference["max_score"]))
    e2e.check(reference["score"] == reference["max_score"], "lab 8's reference earns %r of %r on this GPU" % (
        reference["score"], reference["max_score"]))
    timed, caught, pattern = STEPS_EXPECTED["lab8/" + args.name]
    run, report = grade(e2e, grader, args, "lab8", os.path.join(args.root, "tests", "submissions", "lab8", args.name), True)
    check_steps_caught(e2e, report, args.root, "lab8", caught, pattern)
    print("substituted: %r of %r" % (report["score"], report["max_score"]))


def checks(e2e):
    return {
        "steps": lambda grader, args: check_steps(e2e, grader, args),
        "steps-honest": lambda grader, args: check_steps_honest(e2e, grader, args),
        "steps-gpu": lambda grader, args: check_steps_gpu(e2e, grader, args),
    }
