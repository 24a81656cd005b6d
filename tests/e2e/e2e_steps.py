"""e2e_steps.py: steps that are not what their names say (issue 34, lab.toml [steps]). Registered into e2e.py's
CHECKS by checks(e2e), like e2e_fresh.py.

    steps LAB/NAME      grades tests/submissions/LAB/NAME: the steps STEPS_EXPECTED names lose every item that
                        grades them with not_this_step (details matching its pattern), and no other step does.
                        `timed` ones are graded in full: only the timing band catches them; the others with
                        --quick, since the structure and the kernels' facts need no timing (nor a GPU: a GPU lab
                        graded here is built, its facts read, and not run, exit 5).
    steps-honest LAB/DIR  grades an honest submission (reference/LAB, bench/mid_tier/LAB, relative to the root) in
                        full: no step is caught, and, for a reference, nothing short of full marks is a step's. A
                        GPU lab without a GPU is built and its steps' facts read, not run.
    steps-gpu NAME      on a GPU (skipped without one): lab 8's reference graded in full keeps full marks, and
                        tests/submissions/lab8/NAME graded in full loses the steps STEPS_EXPECTED names.
"""
import os
import re
import subprocess
import tomllib

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


# Lab 4's gradings are the suite's slowest (the register-blocked items time a naive 2048^3 baseline), and its one
# step is the blocked one: its tests grade only the blocked items. --only keeps the correctness items a timed item
# needs, and the timing band runs for a step whose items still hold points.
ONLY = {"lab4": {False: "cache blocked", True: "blocked (block 128) speedup over ikj, 128 x 4096 x 4096"}}


def lab_dir(root, lab):
    for name in os.listdir(os.path.join(root, "labs")):
        if name.split("-")[0] == lab:
            return os.path.join(root, "labs", name)
    raise AssertionError("no lab %s under %s" % (lab, root))


def items_by_variant(root, lab):
    """item name -> the variants it grades, from the lab's lab.toml."""
    with open(os.path.join(lab_dir(root, lab), "lab.toml"), "rb") as f:
        spec = tomllib.load(f)
    items = {item["name"]: list(item["variants"]) for item in spec.get("correctness", [])}
    items.update({item["name"]: [item["variant"]] for item in spec.get("performance", [])})
    return items, [step["variant"] for step in spec.get("steps", {}).get("step", [])]


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
    argv = ["grade", lab, "--submission", submission, "--format", "json"]
    if not timed:
        argv.append("--quick")
    if lab in ONLY:
        argv += ["--only", ONLY[lab][timed]]
    run = grader.run(*argv)
    report = run.json()
    print("seed %s, %s s" % (report.get("seed"), report.get("wall_seconds")))
    return run, report


def check_steps(e2e, grader, args):
    timed, caught, pattern = STEPS_EXPECTED[args.name]
    lab = args.name.split("/")[0]
    submission = os.path.join(args.root, "tests", "submissions", args.name)
    run, report = grade(e2e, grader, args, lab, submission, timed)
    e2e.check(report["status"] in ("graded", "not_run"), "the submission did not grade: %r %s" % (
        report["status"], report.get("details")))
    check_steps_caught(e2e, report, args.root, lab, caught, pattern)


def check_steps_honest(e2e, grader, args):
    lab = args.name.split("/")[-1].split("-")[0]
    run, report = grade(e2e, grader, args, lab, os.path.join(args.root, args.name), timed=True)
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
