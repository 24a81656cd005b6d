"""e2e_disturbed.py: timings that something other than the submission spoiled. Registered into e2e.py's CHECKS by
checks(e2e), like e2e_replay.py. Both grade tests/submissions/lab90-trust/honest in a temporary root holding lab90.

    trust-heavy-harness   an item whose baseline is the candidate's own code (as lab3's scaling items are), and
                          whose harness spends 100 ms before every call of 10 to 40 ms (as a lab does whose fresh
                          inputs are large against a short call). The grader's outside timing sees call and harness
                          together; it must take the harness's share off, measured on judge code, or it calls the
                          honest submission's reported times a lie. Before that, lab3's reference was SUSPECT on
                          lower-triangular scaling: 20.4 ms reported, 41.5 ms seen from outside. The same item
                          must not read as disturbed: its baseline process, sandboxed and killed at the end, is the
                          grader's own work, though the kernel never hands its CPU time back.
    slow-bound            an honest item with a `bound` (lab90's read_x) whose first twelve calls in the judge spin
                          200 ms more: both timings of the bound alone, the first and the one taken again before an
                          accusation, as one busy spell covered both of lab 1's read_a in a class graded two at a
                          time ("measured 2.06 times faster than the judge read_a"). The bound timed beside the
                          judge's baseline must clear it. The same item with every call of the bound slowed stays
                          SUSPECT: that check is no blanket pardon.
    disturbed-then-quiet  programs spin, two per core, from the moment the honest item's measurement begins until the
                          grader says that measurement was disturbed: the item is measured again, the disturbed
                          measurement is thrown away rather than averaged in, and the report carries no busy warning.
"""
import json
import os
import pty
import subprocess
import sys
import tempfile

HEAVY_ITEM = "own baseline, heavy harness"
UNEVEN_ITEM = "own baseline, heavy harness, slower in the candidate's process"
# Appended to the temporary root's copy of lab90's lab.toml: tests/labs/lab90-trust/harness.cpp reads harness_ms and
# candidate_harness_ms. The second item's harness takes half as long again in the candidate's process as in the
# judge's, where the grader measures the harness's share: as lab 3's fresh inputs did on a 16-vCPU H100 host
# (27.6 ms a call on the judge, about 46 ms in the candidate, three tries in a row), which made its honest
# reference SUSPECT ("reported 8.776 ms per call, but the grader measured 27.912 ms").
HEAVY_ITEM_TOML = """
[[performance]]
name = "%s"
variant = "eval"
params = { n = 524288, harness_ms = 100 }
baseline = { process = "candidate", params = { harness_ms = 100 } }
flops = "96*n"
metric = "speedup"
tiers = [ { at = 0.25, points = 10 } ]

[[performance]]
name = "%s"
variant = "eval"
params = { n = 524288, harness_ms = 100, candidate_harness_ms = 50 }
baseline = { process = "candidate", params = { harness_ms = 100, candidate_harness_ms = 50 } }
flops = "96*n"
metric = "speedup"
tiers = [ { at = 0.25, points = 10 } ]
""" % (HEAVY_ITEM, UNEVEN_ITEM)


def grade_each_alone(e2e, grader, args, extra_toml, items):
    """The honest lab90 submission graded once for each of `items` (--only: a judge process of its own each), in a
    temporary root whose lab.toml has `extra_toml` appended. Returns the JSON reports, in order."""
    submission = os.path.join(args.root, "tests", "submissions", e2e.TRUST_LAB, "honest")
    with e2e.trust_root(args) as root:
        with open(os.path.join(root, "labs", e2e.TRUST_LAB, "lab.toml"), "a") as spec:
            spec.write(extra_toml)
        return [grader.run("grade", "lab90", "--submission", submission, "--only", item, "--format", "json",
                           root=root).json() for item in items]


def check_heavy_harness(e2e, grader, args):
    report, uneven = grade_each_alone(e2e, grader, args, HEAVY_ITEM_TOML, [HEAVY_ITEM, UNEVEN_ITEM])
    for graded, name in ((report, HEAVY_ITEM), (uneven, UNEVEN_ITEM)):
        print("seed %s" % graded.get("seed"))
        item = e2e.tests_by_name(graded)[name]
        print("%s: %s, %r points (%s)" % (name, item["status"], item["score"], item["details"]))
        e2e.check(item["status"] == "passed" and item["score"] == 10, "the honest submission's item %r is %r with %r "
                  "points (%s): the harness's own time was charged to it" % (name, item["status"], item["score"],
                                                                            item["details"]))
        e2e.check((item.get("measurement") or {}).get("outside_checked") is True,
                  "item %r: its times were not checked from outside, so the test proves nothing" % name)
    # The candidate's baseline process is sandboxed and killed when the measurement ends; the kernel does not hand
    # its CPU time back to the grader (run/reaper.h). Counted as other programs' load, it used to mark every such
    # measurement disturbed on a quiet machine.
    e2e.check(not any(e2e.BUSY_WARNING in w for w in report.get("warnings", [])),
              "the grader's own baseline process was taken for another program: %r" % report.get("warnings"))


SLOW_BOUND_ITEM = "bound slowed at first"
SLOW_BOUND_ALWAYS_ITEM = "bound slowed always"
# lab90's [timing] has warmup 1 and min_reps 5: the bound's first timing and its timing again are 12 calls.
SLOW_BOUND_TOML = """
[[performance]]
name = "%s"
variant = "eval"
params = { n = 524288, bound_spin_ms = 200, bound_slow_calls = 12 }
bound = "read_x"
flops = "96*n"
metric = "speedup"
tiers = [ { at = 0.25, points = 10 } ]

[[performance]]
name = "%s"
variant = "eval"
params = { n = 524288, bound_spin_ms = 200, bound_slow_calls = 1000000 }
bound = "read_x"
flops = "96*n"
metric = "speedup"
tiers = [ { at = 0.25, points = 10 } ]
""" % (SLOW_BOUND_ITEM, SLOW_BOUND_ALWAYS_ITEM)


def check_slow_bound(e2e, grader, args):
    # Each item in a grading of its own: a judge process of its own, so each starts its count of bound calls.
    cleared, accused = grade_each_alone(e2e, grader, args, SLOW_BOUND_TOML, [SLOW_BOUND_ITEM, SLOW_BOUND_ALWAYS_ITEM])
    item = e2e.tests_by_name(cleared)[SLOW_BOUND_ITEM]
    print("seed %s; %s: %s, %r points (%s)" % (cleared.get("seed"), SLOW_BOUND_ITEM, item["status"], item["score"],
                                              item["details"]))
    e2e.check(item["status"] == "passed" and item["score"] == 10, "the honest item is %r with %r points (%s): a bound "
              "slowed through both of its own timings made it look too fast" % (item["status"], item["score"],
                                                                               item["details"]))
    always = e2e.tests_by_name(accused)[SLOW_BOUND_ALWAYS_ITEM]
    print("seed %s; %s: %s, %r points (%s)" % (accused.get("seed"), SLOW_BOUND_ALWAYS_ITEM, always["status"],
                                              always["score"], always["details"]))
    e2e.check(always["status"] == "suspect" and "times faster than the judge read_x" in always["details"],
              "with every call of the bound slowed the item is %r (%s), expected SUSPECT against read_x" %
              (always["status"], always["details"]))


def grade_watching_progress(grader, root, submission, item, on_line):
    """Grades one item (--only) with stderr on a terminal, so that the grader prints its progress lines;
    on_line(text) sees all of the progress so far after each read. Returns (exit code, stdout, progress)."""
    env = dict(os.environ, NO_COLOR="1")
    env.pop("GRADER_ROOT", None)
    argv = [grader.binary, "--root", root, "grade", "lab90", "--submission", submission, "--only", item,
            "--format", "json"]
    master, slave = pty.openpty()
    with tempfile.TemporaryFile(mode="w+") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=slave, env=env)
        os.close(slave)
        seen = ""
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the terminal closes with the grader
                break
            if not data:
                break
            seen += data.decode(errors="replace")
            on_line(seen)
        os.close(master)
        code = process.wait(timeout=600)
        out.seek(0)
        return code, out.read(), seen


def check_disturbed_then_quiet(e2e, grader, args):
    submission = os.path.join(args.root, "tests", "submissions", e2e.TRUST_LAB, "honest")
    burner = []
    # The spinners start with the correctness cases, so they are all spinning before the measurement window opens:
    # lab90's timing can be over in a third of a second now that an item stops once its points are decided, sooner
    # than a handful of Python processes get going.
    starting = "correctness: eval:"
    disturbed = "performance: %s: disturbed (" % e2e.TRUST_HONEST

    def on_progress(seen):
        # Two per core: the item's thread and the load together need more cores than there are, on any machine,
        # even while the spinners start.
        if not burner and starting in seen:
            burner.extend(subprocess.Popen([sys.executable, "-c", "while True: pass"])
                          for _ in range(2 * (os.cpu_count() or 1)))
        if burner and burner[0].poll() is None and disturbed in seen:
            for process in burner:  # all killed at once, before any wait: the retry starts right away
                process.kill()
            for process in burner:
                process.wait()

    try:
        with e2e.trust_root(args) as root:
            code, stdout, progress = grade_watching_progress(grader, root, submission, e2e.TRUST_HONEST,
                                                             on_progress)
    finally:
        for process in burner:
            process.kill()
            process.wait()
    print(progress.replace("\r", "\n").replace("\033[K", ""))
    e2e.check(burner, "the grader never said it was measuring %r" % e2e.TRUST_HONEST)
    e2e.check(disturbed in progress, "every core spinning through the whole measurement did not make the grader "
              "measure again (no %r in its progress)" % disturbed)
    report = json.loads(stdout)
    item = e2e.tests_by_name(report)[e2e.TRUST_HONEST]
    retries = (item.get("measurement") or {}).get("noise_retries")
    print("%s: %s, %r points, measured again %r time(s); warnings %r" % (
        e2e.TRUST_HONEST, item["status"], item["score"], retries, report.get("warnings")))
    e2e.check(code == e2e.ALL_PASSED, "exit code %d" % code)
    e2e.check(item["status"] == "passed" and item["score"] == e2e.TRUST_PERFORMANCE[e2e.TRUST_HONEST],
              "the item is %r with %r points (%s)" % (item["status"], item["score"], item["details"]))
    e2e.check(retries is not None and retries >= 1, "the report does not count the measurement taken again: %r" % retries)
    e2e.check(not any(e2e.BUSY_WARNING in w for w in report.get("warnings", [])),
              "the report still warns of a busy machine, though the measurement it kept was quiet: %r" %
              report.get("warnings"))


def checks(e2e):
    return {
        "trust-heavy-harness": lambda grader, args: check_heavy_harness(e2e, grader, args),
        "disturbed-then-quiet": lambda grader, args: check_disturbed_then_quiet(e2e, grader, args),
        "slow-bound": lambda grader, args: check_slow_bound(e2e, grader, args),
    }
