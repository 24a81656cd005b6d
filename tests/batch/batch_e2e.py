#!/usr/bin/env python3
"""batch_e2e.py: end-to-end checks of `grader batch`, one check per CTest test (tests/batch/CMakeLists.txt).

    python3 batch_e2e.py --grader build/bin/grader --root . --work DIR class CLASS_DIR
    python3 batch_e2e.py --grader build/bin/grader --root . --work DIR resume

Checks:
  class CLASS_DIR   the synthetic class (make_class.py) graded with --quick: grades.csv cell by cell, the
                    per-student files, summary.md, nothing written outside the work folders; a second run
                    grades nobody; --regrade replays the same inputs; --gradescope; usage errors
  full              three students timed (no --quick): performance columns, fastest and slowest
  resume            a batch killed with SIGKILL after a few students, restarted: each student exactly once
  cli               --slurm --dry-run's script, a refused sbatch (exit 6), and refusals of bad command lines
  appeal            what a TA reads: a regrade rewrites every file of the student (Gradescope's too, remembered),
                    regrades.csv records it; report, CSV and Gradescope words; a file named in the wrong case
  downloads         a Canvas download (flat files, a resubmission, a late one) and a Gradescope export
                    (submission_<n>/ and submission_metadata.yml) graded as they come
  unboxed           a batch graded without the sandbox (GRADER_SANDBOX=off) says so at the start and in summary.md
  slurm SLURM_DIR   a class graded through a SLURM job array on the cluster slurm_up.sh started, collected,
                    and compared with a local batch of the same class

A check prints what it ran and, on failure, why, then exits 1; 77 when it cannot run here (the test's
SKIP_RETURN_CODE), with the reason. Python's standard library only.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import make_class  # noqa: E402

SKIP = 77
ITEMS = ["row pointers", "contiguous layout", "unrolled",
         "unrolled speedup over row pointers, 10000 x 10000", "unrolled bandwidth, 10000 x 10000"]
HEADER = ["student", "total", "max", "status"] + ITEMS
REFUSED_STATUSES = {"missing_file", "bad_archive"}


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


class Context:
    def __init__(self, args):
        self.grader = args.grader
        self.root = args.root
        self.work = os.path.abspath(args.work)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.tmp = os.path.join(self.work, "tmp")  # TMPDIR: what the batch leaves behind is visible here
        os.makedirs(self.tmp)

    def env(self, extra=None):
        env = dict(os.environ, TMPDIR=self.tmp, NO_COLOR="1")
        env.update(extra or {})
        return env

    def batch(self, *args, expect=None, env=None, timeout=600, lab="lab1"):
        cmd = [self.grader, "--root", self.root, "batch", lab] + [str(a) for a in args]
        print("$ " + " ".join(cmd), flush=True)
        start = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=self.env(env), timeout=timeout)
        proc.seconds = time.monotonic() - start
        print(proc.stdout + proc.stderr + "(exit %d, %.1f s)" % (proc.returncode, proc.seconds), flush=True)
        if expect is not None:
            check(proc.returncode == expect, "exit code %d, expected %d" % (proc.returncode, expect))
        return proc


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    check(rows and rows[0] == HEADER, "grades.csv header %r, expected %r" % (rows[0] if rows else None, HEADER))
    for row in rows:
        check(len(row) == len(HEADER), "a grades.csv row with %d fields, not %d: %r" % (len(row), len(HEADER), row))
    ids = [r[0] for r in rows[1:]]
    check(len(ids) == len(set(ids)), "students appear more than once in grades.csv: %r" % ids)
    return {r[0]: r for r in rows[1:]}


def load(path):
    with open(path) as f:
        return json.load(f)


def number(text):
    return float(text) if text != "" else None


def check_class_row(sid, row, want, report):
    status = row[3]
    if want["variant"] == "refused":
        check(status in REFUSED_STATUSES, "%s: status %s, expected one of %s" % (sid, status, sorted(REFUSED_STATUSES)))
    else:
        check(status == want["status"], "%s: status %s, expected %s" % (sid, status, want["status"]))
    cells = [number(c) for c in row[4:]]
    check(cells == [float(c) for c in want["cells"]], "%s: item cells %r, expected %r" % (sid, row[4:], want["cells"]))
    check(number(row[1]) == sum(want["cells"]), "%s: total %s, expected %s" % (sid, row[1], sum(want["cells"])))
    check(row[2] == "80", "%s: max %s, expected 80" % (sid, row[2]))
    if want["details"]:
        check(want["details"] in report["status_details"],
              "%s: status_details %r does not say %r" % (sid, report["status_details"], want["details"]))


# --- class ------------------------------------------------------------------------------------------------


def check_class(ctx, class_dir):
    expected = load(os.path.join(class_dir, "expected.json"))
    submissions = os.path.join(class_dir, "class")
    out = os.path.join(ctx.work, "out")
    check(len(expected) >= 30, "the synthetic class has %d students, fewer than 30" % len(expected))

    proc = ctx.batch(submissions, "--out", out, "--quick", "--jobs", "2", "--seed", "20240601", expect=0)
    rows = read_csv(os.path.join(out, "grades.csv"))
    check(sorted(rows) == sorted(expected), "grades.csv students %r, expected %r" % (sorted(rows), sorted(expected)))
    for sid, want in sorted(expected.items()):
        report = load(os.path.join(out, sid + ".json"))
        check(report["schema"] == "grader-report/1", "%s.json: schema %r" % (sid, report.get("schema")))
        check(report["batch"]["student"] == sid, "%s.json names %r" % (sid, report["batch"]["student"]))
        check_class_row(sid, rows[sid], want, report)
        text = open(os.path.join(out, sid + ".txt")).read()
        check(text.startswith("lab1-matvec: "), "%s.txt does not start with the report's title" % sid)
        check("\033[" not in text, "%s.txt has colour codes" % sid)
        check("total %s / 80" % rows[sid][1] in text, "%s.txt does not show the total %s" % (sid, rows[sid][1]))
        # Issue 15: every student who reached the pipeline has a replay bundle of that grading; a refused one has none.
        bundle = os.path.join(out, sid + ".bundle", "bundle.json")
        if want["variant"] == "refused" or report["batch"]["refused"]:
            check(not os.path.exists(bundle), "%s was refused and has a replay bundle" % sid)
        else:
            check(os.path.isfile(bundle), "%s has no replay bundle %s" % (sid, bundle))
            kept = load(bundle)
            check(kept["seed"] == report["seed"] and kept["report"]["score"] == report["score"],
                  "%s: the bundle's seed or score is not the report's" % sid)
        if want["variant"] in ("fast", "slow", "wrong"):
            # Staff grading: hidden cases ran.
            check(report["hidden_not_run"] == 0, "%s: %d hidden cases not run" % (sid, report["hidden_not_run"]))
            cases = [c["name"] for t in report["tests"] for c in t.get("cases", [])]
            check("odd 997 x 1013" in cases, "%s: the hidden case 'odd 997 x 1013' did not run" % sid)
    # Feedback never names a hidden case (the wrong variant fails the hidden 'odd 997 x 1013' too).
    wrong = load(os.path.join(out, "s11-wrong-folder.json"))
    check(any(c["name"] == "odd 997 x 1013" and c["status"] == "wrong_answer" for t in wrong["tests"] for c in t.get("cases", [])),
          "s11-wrong-folder did not fail the hidden case")
    check("odd 997 x 1013" not in open(os.path.join(out, "s11-wrong-folder.txt")).read(), "s11-wrong-folder.txt names a hidden case")

    # Nothing escaped an archive, and the work folders are gone.
    escaped = [os.path.join(d, f) for d, _, files in os.walk(ctx.work) for f in files if f == "grader-batch-test-escaped.cpp"]
    check(not escaped, "an archive wrote outside its folder: %r" % escaped)
    check(not os.path.exists("/tmp/grader-batch-test-escaped.cpp"), "an absolute path in an archive was written")
    # Work folders live in TMPDIR/grader-<uid>/<pid>/ (core/scratch.h), removed when the grader ends.
    leftovers = [e for e in os.listdir(ctx.tmp) if e.startswith("grader-") and e != "grader-%d" % os.geteuid()]
    mine = os.path.join(ctx.tmp, "grader-%d" % os.geteuid())
    check(os.path.isdir(mine), "no work folder was made in TMPDIR/grader-<uid>")
    leftovers += [os.path.join(mine, e) for e in os.listdir(mine)]
    check(not leftovers, "work folders left in TMPDIR: %r" % leftovers)
    check(os.stat(mine).st_mode & 0o777 == 0o711, "TMPDIR/grader-<uid> is listable by others")

    summary = open(os.path.join(out, "summary.md")).read()
    n = len(expected)
    for needle in ["%d of %d students graded" % (n, n), "| mean |", "| median |", "## Scores", "| build_error | 3 |",
                   "| policy_refused | 2 |", "| time_limit | 1 |", "Build failures: 3.", "none was timed",
                   "submission refused: s26-dotdot-zip: archive refused"]:
        check(needle in summary, "summary.md lacks %r" % needle)
    check(summary.count("submission refused:") == 12, "summary.md lists %d refused submissions, expected 12" % summary.count("submission refused:"))

    # Run again: nobody is graded twice, the gradebook is the same.
    before = open(os.path.join(out, "grades.csv")).read()
    proc = ctx.batch(submissions, "--out", out, "--quick", expect=0)
    check("%d already graded; grading 0" % n in proc.stderr, "the second run graded students again")
    check(open(os.path.join(out, "grades.csv")).read() == before, "grades.csv changed on a run that graded nobody")

    # An appeal: the same inputs (the same seed), the same score.
    first = load(os.path.join(out, "s11-wrong-folder.json"))
    proc = ctx.batch(submissions, "--out", out, "--quick", "--regrade", "s11-wrong-folder", expect=0)
    again = load(os.path.join(out, "s11-wrong-folder.json"))
    check(again["seed"] == first["seed"], "the regrade used seed %s, the first grading %s" % (again["seed"], first["seed"]))
    check(again["score"] == first["score"], "the regrade scored %s, the first grading %s" % (again["score"], first["score"]))
    check(open(os.path.join(out, "grades.csv")).read() == before, "grades.csv changed after a regrade with the same result")

    # Gradescope files on request. The students graded earlier and not graded again (--only) get theirs from their
    # stored reports (issue 31): written, and not graded again.
    s02_report = open(os.path.join(out, "s02-fast-wrapped.json")).read()
    proc = ctx.batch(submissions, "--out", out, "--quick", "--only", "s01-fast-folder,s17-compile-error-folder", "--force",
                     "--gradescope", expect=0)
    gs = load(os.path.join(out, "gradescope", "s17-compile-error-folder.results.json"))
    check(gs["score"] == 0 and len(gs["tests"]) == 5, "s17's results.json: score %s, %d tests" % (gs["score"], len(gs["tests"])))
    check("wrote the Gradescope files of %d student(s) graded earlier" % n in proc.stderr,
          "the earlier students' Gradescope files were not written from their reports")
    s02 = load(os.path.join(out, "gradescope", "s02-fast-wrapped.results.json"))
    check(s02["score"] == 40 and len(s02["tests"]) == 5, "s02's results.json: score %s" % s02["score"])
    check(open(os.path.join(out, "s02-fast-wrapped.json")).read() == s02_report, "--only graded others too")
    # A student's feedback shows the compiler's words with their own file names, never the grader's work folder, its
    # sandbox command line or the course's staff paths.
    for name in ("s17-compile-error-folder.txt", "s17-compile-error-folder.json",
                 os.path.join("gradescope", "s17-compile-error-folder.results.json")):
        text = open(os.path.join(out, name)).read()
        check("error:" in text, "%s does not show the compiler's error" % name)
        for staff in ("/tmp/grader-", "bwrap", "build-inputs", ctx.root + "/reference"):
            check(staff not in text, "%s names %r: %s" % (name, staff, text[:400]))

    # Refusals: unknown students, another mode or seed in the same folder.
    proc = ctx.batch(submissions, "--out", out, "--quick", "--only", "nobody", expect=2)
    check("no submission for: nobody" in proc.stderr, "an unknown --only student is not named")
    proc = ctx.batch(submissions, "--out", out, expect=2)
    check("--quick" in proc.stderr, "a timed run into a --quick folder is not refused with a reason")
    proc = ctx.batch(submissions, "--out", out, "--quick", "--seed", "1", expect=2)
    check("--seed 20240601" in proc.stderr, "a different seed is not refused with the folder's seed")


# --- full -------------------------------------------------------------------------------------------------


def check_full(ctx):
    submissions = os.path.join(ctx.work, "class")
    for sid, variant in [("fast", "fast"), ("slow", "slow"), ("broken", "compile_error")]:
        make_class.write_student(submissions, sid, variant, "folder")
    out = os.path.join(ctx.work, "out")
    ctx.batch(submissions, "--out", out, "--jobs", "2", expect=0, timeout=900)
    rows = read_csv(os.path.join(out, "grades.csv"))
    check(sorted(rows) == ["broken", "fast", "slow"], "students %r" % sorted(rows))
    check(rows["broken"][3] == "build_error", "broken: status %s" % rows["broken"][3])
    # "suspect" is the pipeline's word for a time faster than this machine's calibration allows: it happens to
    # fast code when the calibration was taken on a busy machine. The columns are what this test is about.
    for sid, allowed in (("fast", ("passed", "suspect")), ("slow", ("passed",))):
        check(rows[sid][3] in allowed, "%s: status %s, expected one of %s" % (sid, rows[sid][3], allowed))
        check(rows[sid][4:7] == ["10", "10", "20"], "%s: correctness cells %r" % (sid, rows[sid][4:7]))
        for cell in rows[sid][7:]:
            check(cell != "" and 0 <= float(cell) <= 20, "%s: performance cell %r" % (sid, cell))
    def speedup_item(sid):
        test = next(t for t in load(os.path.join(out, sid + ".json"))["tests"] if t["name"] == ITEMS[3])
        check("measurement" in test, "%s: %s was not timed (%s)" % (sid, ITEMS[3], test["details"]))
        return test

    def median(sid):
        return speedup_item(sid)["measurement"]["candidate"]["median_s"]

    # The plain loop earns nothing for speed: its median speedup is under the first tier. A busy machine can widen
    # its interval across that tier, and then the noise rule gives the interval's upper end (the benefit of the
    # doubt, docs/student-guide.md): any points it has must come from that rule, and match the grades.csv cell.
    plain_loop = speedup_item("slow")
    m = plain_loop["measurement"]
    first_tier = m["tiers"][0]["at"]
    check(m["metric_value"] < first_tier, "slow's median speedup %.3f reaches the first tier %.2f" % (m["metric_value"], first_tier))
    check(abs(float(rows["slow"][7]) - plain_loop["score"]) < 0.01,
          "grades.csv says %s, the report %s" % (rows["slow"][7], plain_loop["score"]))
    if plain_loop["score"] > 0:
        check(m["within_noise"] and m["metric_interval"][1] >= first_tier,
              "slow earned %s speedup points outside the noise rule: %r" % (rows["slow"][7], m))

    fast, slow = median("fast"), median("slow")
    check(0 < fast < slow, "fast's median %.4f s is not below slow's %.4f s" % (fast, slow))
    summary = open(os.path.join(out, "summary.md")).read()
    check("| fastest | fast |" in summary and "| slowest | slow |" in summary, "summary.md does not rank fast first, slow last")
    check("(2 timed)" in summary, "summary.md does not say two submissions were timed")


# --- resume -----------------------------------------------------------------------------------------------


def finished(out):
    return sorted(f[:-5] for f in os.listdir(out) if f.endswith(".json") and not f.startswith(".") and not f.endswith(".results.json"))


def check_resume(ctx):
    submissions = os.path.join(ctx.work, "class")
    ids = []
    for sid, variant in make_class.SMALL:
        make_class.write_student(submissions, sid, variant, "folder")
        ids.append(sid)
    out = os.path.join(ctx.work, "out")
    cmd = [ctx.grader, "--root", ctx.root, "batch", "lab1", submissions, "--out", out, "--quick", "--jobs", "2"]
    print("$ " + " ".join(cmd) + "   (killed with SIGKILL once 3 students are stored)", flush=True)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=ctx.env(), start_new_session=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if os.path.isdir(out) and len(finished(out)) >= 3:
            break
        time.sleep(0.05)
    check(proc.poll() is None, "the batch ended before it could be killed")
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    print(proc.stdout.read().decode(errors="replace"), flush=True)
    done_before = finished(out)
    print("stored before the kill: %s" % done_before, flush=True)
    check(3 <= len(done_before) < len(ids), "%d students stored at the kill" % len(done_before))
    check(not os.path.exists(os.path.join(out, "grades.csv")), "grades.csv written before the batch ended")
    stamps = {sid: load(os.path.join(out, sid + ".json"))["batch"]["graded_at"] for sid in done_before}
    seeds = {sid: load(os.path.join(out, sid + ".json"))["seed"] for sid in done_before}

    run = ctx.batch(submissions, "--out", out, "--quick", "--jobs", "2", expect=0)
    check("%d already graded" % len(done_before) in run.stderr, "the restart does not say it skipped %d students" % len(done_before))
    for sid in done_before:
        check(run.stderr.count("] %s:" % sid) == 0, "%s was graded again after the restart" % sid)
        report = load(os.path.join(out, sid + ".json"))
        check(report["batch"]["graded_at"] == stamps[sid] and report["seed"] == seeds[sid], "%s's report was rewritten" % sid)
    rows = read_csv(os.path.join(out, "grades.csv"))
    check(sorted(rows) == ids, "grades.csv holds %r, expected every student once: %r" % (sorted(rows), ids))
    for sid, variant in make_class.SMALL:
        status, cells = make_class.OUTCOMES[variant]
        check(rows[sid][3] == status and [float(c) for c in rows[sid][4:]] == cells,
              "%s: %r, expected %s %r" % (sid, rows[sid], status, cells))
    check(finished(out) == ids, "stored reports %r" % finished(out))


# --- cli --------------------------------------------------------------------------------------------------


def check_cli(ctx):
    submissions = os.path.join(ctx.work, "my class")  # a space: the script must quote it
    for sid, variant in make_class.SMALL[:5]:
        make_class.write_student(submissions, sid, variant, "folder")
    out = os.path.join(ctx.work, "out")
    proc = ctx.batch(submissions, "--out", out, "--slurm", "--dry-run", "--chunk", "2", "--partition", "gpu",
                     "--time", "20:00", "--gpus-per-task", "1", "--seed", "7", "--account", "cs101", "--qos", "short",
                     "--mem", "8G", "--constraint", "icelake", "--array-limit", "2", "--sbatch=--reservation=exam", expect=0)
    script = proc.stdout
    for needle in ["#!/bin/bash", "#SBATCH --array=0-2%2\n", "#SBATCH --partition=gpu\n", "#SBATCH --time=20:00\n",
                   "#SBATCH --gpus-per-task=1\n", "#SBATCH --account=cs101\n", "#SBATCH --qos=short\n",
                   "#SBATCH --mem=8G\n", "#SBATCH --constraint=icelake\n", "#SBATCH --reservation=exam\n",
                   "'%s'" % os.path.abspath(submissions), "--array-task", "--seed 7", "--no-summary",
                   "--jobs \"${SLURM_CPUS_ON_NODE:-1}\""]:
        check(needle in script, "the job script lacks %r" % needle)
    # A timed batch asks for no whole node unless the TA says so, and sizes its tasks by work: 5 students, one task.
    check("--exclusive" not in script, "a timed job asks for a whole node per task by default")
    check(not os.path.exists(out), "--dry-run wrote the output folder")
    proc = ctx.batch(submissions, "--out", out, "--slurm", "--dry-run", "--quick", expect=0)
    check("--exclusive" not in proc.stdout and "--quick" in proc.stdout, "a --quick job asks for whole nodes, or is not --quick")
    check("#SBATCH --array=0-0\n" in proc.stdout, "5 students are not one array task by default")
    check(re.search(r"#SBATCH --time=\d+\n", proc.stdout), "no default time limit per task")
    check("times threaded code" not in proc.stderr, "lab1 times one thread, yet the TA is told to ask for cores")
    # A lab that times threads (lab3) on one CPU would time its scaling on one core: the TA is told to ask for cores.
    proc = ctx.batch(submissions, "--out", out, "--slurm", "--dry-run", lab="lab3", expect=0)
    check("times threaded code" in proc.stderr and "warning: lab3-openmp times threaded code" in proc.stdout,
          "a timed lab3 job on one CPU per task is not warned about, on stderr and in the script")
    proc = ctx.batch(submissions, "--out", out, "--slurm", "--dry-run", "--cpus-per-task", "16", lab="lab3", expect=0)
    check("times threaded code" not in proc.stderr and "#SBATCH --cpus-per-task=16\n" in proc.stdout, "--cpus-per-task 16")
    proc = ctx.batch(submissions, "--out", out, "--slurm", "--dry-run", "--exclusive", expect=0)
    check("#SBATCH --exclusive\n" in proc.stdout, "--exclusive is not passed on")
    proc = ctx.batch(submissions, "--out", out, "--slurm", "--dry-run", "--account", "a\nrm -rf ~", expect=2)
    check("line break" in proc.stderr, "an option with a line break is not refused with the reason")

    # A cluster that refuses the job is not a missing environment: exit 6, with sbatch's own words.
    fake = os.path.join(ctx.work, "fake-slurm")
    os.makedirs(fake)
    for tool, body in (("sbatch", "echo 'sbatch: error: Invalid account or account/partition combination' >&2; exit 1"),
                       ("squeue", "exit 0")):
        with open(os.path.join(fake, tool), "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(os.path.join(fake, tool), 0o755)
    refused = os.path.join(ctx.work, "refused")
    proc = ctx.batch(submissions, "--out", refused, "--slurm", "--quick", "--account", "nope", expect=6,
                     env={"PATH": fake + os.pathsep + os.environ.get("PATH", "")})
    check("Invalid account" in proc.stderr and "environment missing" not in proc.stderr, "the refusal reads %r" % proc.stderr)

    ctx.batch(os.path.join(ctx.work, "no such folder"), "--out", out, expect=2)
    ctx.batch(submissions, "--out", out, "--collect", "--slurm", expect=2)
    ctx.batch(submissions, "--out", out, "--jobs", "0", expect=2)
    proc = ctx.batch(submissions, "--out", out, "--array-task", os.path.join(out, "none.json"), expect=2)
    check("task roster" in proc.stderr, "a missing task roster is not named")


# --- appeal -----------------------------------------------------------------------------------------------


def check_appeal(ctx):
    submissions = os.path.join(ctx.work, "class")
    make_class.write_student(submissions, "carol", "wrong", "folder")
    make_class.write_student(submissions, "dave", "fast", "folder")
    make_class.write_student(submissions, "erin", "fast", "folder")
    os.rename(os.path.join(submissions, "erin", "matvec.cpp"), os.path.join(submissions, "erin", "MatVec.cpp"))
    out = os.path.join(ctx.work, "out")
    ctx.batch(submissions, "--out", out, "--quick", "--jobs", "2", "--seed", "5", "--gradescope", expect=0)

    # Words: the report went through every stage ("graded"), the gradebook names the first failure, and Gradescope's
    # summary line never says "passed" for a wrong answer.
    carol = load(os.path.join(out, "carol.json"))
    check(carol["status"] == "graded", "carol.json status %r, expected graded" % carol["status"])
    rows = read_csv(os.path.join(out, "grades.csv"))
    check(rows["carol"][3] == "wrong_answer" and rows["carol"][1] == "20", "carol's row %r" % rows["carol"])
    gs = load(os.path.join(out, "gradescope", "carol.results.json"))
    first = gs["output"].splitlines()[0]
    check(first.startswith("lab1-matvec: graded, 20 / 80 points; first failure: wrong answer in "), "Gradescope says %r" % first)
    check("passed" not in first, "Gradescope's summary of a wrong answer says passed: %r" % first)

    # A name in the wrong case: the student is told what was found, and a person is asked to look.
    erin = load(os.path.join(out, "erin.json"))
    check(erin["status"] == "missing_file", "erin: status %r" % erin["status"])
    check("found MatVec.cpp: names are case-sensitive" in erin["status_details"], "erin: %r" % erin["status_details"])
    summary = open(os.path.join(out, "summary.md")).read()
    check("## Needs a person" in summary, "summary.md has no 'Needs a person'")
    needs = summary[summary.index("## Needs a person"):]
    check(re.search(r"erin: found MatVec\.cpp for matvec\.cpp", needs), "erin is not under 'Needs a person':\n" + needs)
    check(not os.path.exists(os.path.join(out, "regrades.csv")), "regrades.csv written before any regrade")

    # An appeal: carol's fixed file, regraded without repeating --gradescope. Every file of hers says the new score.
    make_class.write_student(os.path.join(ctx.work, "fixed"), "carol", "fast", "folder")
    shutil.copy(os.path.join(ctx.work, "fixed", "carol", "matvec.cpp"), os.path.join(submissions, "carol", "matvec.cpp"))
    proc = ctx.batch(submissions, "--out", out, "--quick", "--regrade", "carol", "--reason", "appeal 12, file fixed", expect=0)
    check("Gradescope" in proc.stderr, "the regrade does not say it writes the Gradescope files too")
    carol = load(os.path.join(out, "carol.json"))
    check(carol["score"] == 40, "carol.json says %s after the regrade, expected 40" % carol["score"])
    check(read_csv(os.path.join(out, "grades.csv"))["carol"][1] == "40", "grades.csv not regenerated")
    gs = load(os.path.join(out, "gradescope", "carol.results.json"))
    check(gs["score"] == 40, "gradescope/carol.results.json still says %s: a stale file" % gs["score"])
    check("gradescope" in load(os.path.join(out, ".batch.json")).get("formats", []), ".batch.json forgot --gradescope")
    with open(os.path.join(out, "regrades.csv"), newline="") as f:
        log = list(csv.reader(f))
    check(log[0] == ["graded_at", "by", "student", "old_score", "new_score", "max", "old_status", "new_status", "reason"],
          "regrades.csv header %r" % log[0])
    check(len(log) == 2, "regrades.csv has %d rows, expected one regrade" % (len(log) - 1))
    row = dict(zip(log[0], log[1]))
    check((row["student"], row["old_score"], row["new_score"], row["old_status"], row["new_status"], row["reason"]) ==
          ("carol", "20", "40", "wrong_answer", "passed", "appeal 12, file fixed"), "regrades.csv row %r" % row)
    check(re.match(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", row["graded_at"]), "regrade time %r" % row["graded_at"])


# --- downloads --------------------------------------------------------------------------------------------


def check_downloads(ctx):
    canvas = os.path.join(ctx.work, "canvas")
    os.makedirs(canvas)
    # smithjohn uploaded a wrong matvec.cpp, then a correct one (Canvas names it matvec-1.cpp); doejane was late.
    with open(os.path.join(canvas, "smithjohn_12345_6789012_matvec.cpp"), "wb") as f:
        f.write(make_class.source("wrong"))
    with open(os.path.join(canvas, "smithjohn_12345_6789012_matvec-1.cpp"), "wb") as f:
        f.write(make_class.source("fast"))
    with open(os.path.join(canvas, "doejane_late_777_888_matvec.cpp"), "wb") as f:
        f.write(make_class.source("wrong"))
    out = os.path.join(ctx.work, "canvas-out")
    ctx.batch(canvas, "--out", out, "--quick", expect=0)
    rows = read_csv(os.path.join(out, "grades.csv"))
    check(sorted(rows) == ["doejane_777", "smithjohn_12345"], "Canvas students %r" % sorted(rows))
    check(rows["smithjohn_12345"][1] == "40", "smithjohn's latest upload was not the one graded: %r" % rows["smithjohn_12345"])
    check(rows["doejane_777"][3] == "wrong_answer", "doejane: %r" % rows["doejane_777"])
    check(load(os.path.join(out, "doejane_777.json"))["batch"].get("late") is True, "doejane's report does not say late")

    # The same download as a Canvas group assignment: smithjohn submitted for Team 1 (himself, Ann Lee, and Zed, who
    # is not in the roster), doejane for Team 2; Team 3 submitted nothing. Every member gets the group's score, and
    # what cannot be placed is listed. The students are graded already: this run only writes canvas.csv.
    roster = os.path.join(ctx.work, "roster.csv")
    with open(roster, "w", newline="") as f:
        f.write("Student,ID,SIS User ID,SIS Login ID,Section\r\n    Points Possible,,,,\r\n"
                "\"Smith, John\",12345,s1,jsmith,A\r\n\"Lee, Ann\",12346,s2,alee,A\r\n"
                "\"Doe, Jane\",777,s3,jdoe,A\r\n\"Kim, Kay\",778,s4,kkim,A\r\n")
    groups = os.path.join(ctx.work, "groups.csv")
    with open(groups, "w", newline="") as f:
        f.write("name,canvas_user_id,user_id,login_id,sections,group_name,canvas_group_id,group_id\r\n"
                "\"Smith, John\",12345,s1,jsmith,A,Team 1,501,\r\n\"Lee, Ann\",12346,s2,alee,A,Team 1,501,\r\n"
                "\"Ghost, Zed\",99999,s9,zghost,A,Team 1,501,\r\n\"Doe, Jane\",777,s3,jdoe,A,Team 2,502,\r\n"
                "\"Kim, Kay\",778,s4,kkim,A,Team 3,503,\r\n")
    run = ctx.batch(canvas, "--out", out, "--quick", "--canvas", roster, "--canvas-groups", groups, expect=0)
    with open(os.path.join(out, "canvas.csv"), newline="") as f:
        cells = {r[0]: r[-1] for r in csv.reader(f)}
    check(cells["Smith, John"] == cells["Lee, Ann"] == rows["smithjohn_12345"][1],
          "Team 1's members do not both have smithjohn's score %r: %r" % (rows["smithjohn_12345"][1], cells))
    check(cells["Doe, Jane"] == rows["doejane_777"][1], "Team 2's member has not doejane's score: %r" % cells)
    check(cells["Kim, Kay"] == "", "Team 3 submitted nothing, yet Kim has a score: %r" % cells)
    summary = open(os.path.join(out, "summary.md")).read()
    check("its member Ghost, Zed (login zghost) has no roster row" in summary and "Ghost, Zed" in run.stderr,
          "the member without a roster row is not listed in summary.md and on stderr")
    check(re.search(r"Groups without a graded submission \(1\): Team 3", summary), "Team 3 is not listed as without a submission")
    # A groups file Canvas did not write stops the batch before anyone is graded.
    bad = os.path.join(ctx.work, "bad-groups.csv")
    with open(bad, "w") as f:
        f.write("Student,Team\nSmith,1\n")
    refused = ctx.batch(canvas, "--out", os.path.join(ctx.work, "refused-out"), "--quick", "--canvas", roster,
                        "--canvas-groups", bad, expect=2)
    check("bad-groups.csv:1: no canvas_user_id, user_id or login_id column" in refused.stderr,
          "the refusal does not name the groups file's line: %r" % refused.stderr)

    gradescope = os.path.join(ctx.work, "gradescope")
    make_class.write_student(gradescope, "submission_101", "fast", "folder")
    make_class.write_student(gradescope, "submission_102", "wrong", "folder")
    with open(os.path.join(gradescope, "submission_metadata.yml"), "w") as f:
        f.write("submission_101:\n  :submitters:\n  - :name: Ada Lovelace\n    :sid: '1815'\n"
                "  :created_at: 2025-01-31 12:00:00.000000000 -08:00\n"
                "submission_102:\n  :submitters:\n  - :name: Bob Smith\n    :sid: '42'\n"
                "  :created_at: 2025-01-31 13:00:00.000000000 -08:00\n")
    out = os.path.join(ctx.work, "gradescope-out")
    ctx.batch(gradescope, "--out", out, "--quick", expect=0)
    rows = read_csv(os.path.join(out, "grades.csv"))
    check(sorted(rows) == ["1815", "42"], "Gradescope students %r (the metadata file is no student)" % sorted(rows))
    check(rows["1815"][3] == "passed" and rows["42"][3] == "wrong_answer", "Gradescope rows %r" % rows)


# --- unboxed ----------------------------------------------------------------------------------------------


def check_unboxed(ctx):
    submissions = os.path.join(ctx.work, "class")
    make_class.write_student(submissions, "alice", "fast", "folder")
    out = os.path.join(ctx.work, "out")
    proc = ctx.batch(submissions, "--out", out, "--quick", env={"GRADER_SANDBOX": "off"}, expect=0)
    first = proc.stderr.find("grading WITHOUT the sandbox")
    check(first >= 0, "the batch does not warn that it grades without the sandbox")
    building = proc.stderr.find("building")
    check(building < 0 or first < building, "the warning comes after the grading started, not at the start")
    summary = open(os.path.join(out, "summary.md")).read()
    warning = [line for line in summary.splitlines() if "graded without the sandbox" in line]
    check(warning and warning[0].endswith("Students: alice"), "summary.md does not name alice as graded without the "
          "sandbox:\n" + summary)
    # With the sandbox (where this machine has one), no warning.
    boxed = os.path.join(ctx.work, "boxed")
    proc = ctx.batch(submissions, "--out", boxed, "--quick", expect=0)
    if "bubblewrap sandbox" in load(os.path.join(boxed, "alice.json")).get("isolation", ""):
        check("WITHOUT the sandbox" not in proc.stderr, "a sandboxed batch warns about the sandbox")
        check("without the sandbox" not in open(os.path.join(boxed, "summary.md")).read(), "a sandboxed summary warns")
    else:
        print("(no sandbox on this machine: the sandboxed half of the check did not run)")


# --- slurm ------------------------------------------------------------------------------------------------


def check_slurm(ctx, slurm_dir):
    skip = os.path.join(slurm_dir, "skip")
    if os.path.exists(skip):
        print("SKIPPED: " + open(skip).read().strip())
        return SKIP
    conf = os.path.join(slurm_dir, "slurm.conf")
    if not os.path.exists(conf):
        raise CheckFailed("no %s: the slurm fixture (slurm_up.sh) did not run or failed" % conf)
    env = {"SLURM_CONF": conf}

    submissions = os.path.join(ctx.work, "class")
    for sid, variant in make_class.SMALL:
        make_class.write_student(submissions, sid, variant, "folder")
    # Two archives too: the tasks unpack them on the node.
    make_class.write_student(submissions, "z13-zip", "wrong", "zip")
    make_class.write_student(submissions, "z14-targz", "fast", "tar.gz")
    local, cluster = os.path.join(ctx.work, "local"), os.path.join(ctx.work, "cluster")

    ctx.batch(submissions, "--out", local, "--quick", "--seed", "99", expect=0)
    run = ctx.batch(submissions, "--out", cluster, "--quick", "--seed", "99", "--slurm", "--chunk", "3", "--wait",
                    expect=0, env=env, timeout=900)
    check(re.search(r"submitted job \d+: 5 array task\(s\) for 14 student\(s\)", run.stdout), "the job was not submitted as 5 tasks")
    submitted = os.listdir(os.path.join(cluster, "slurm"))
    check(len(submitted) == 1, "one folder per submission in slurm/: %r" % submitted)
    logs = os.path.join(cluster, "slurm", submitted[0], "logs")
    check(sorted(os.listdir(logs)) == ["task-%d.log" % i for i in range(5)], "task logs: %r" % sorted(os.listdir(logs)))

    local_rows, cluster_rows = read_csv(os.path.join(local, "grades.csv")), read_csv(os.path.join(cluster, "grades.csv"))
    check(sorted(cluster_rows) == sorted(local_rows) and len(cluster_rows) == 14, "students differ: %r" % sorted(cluster_rows))
    for sid in local_rows:
        check(cluster_rows[sid] == local_rows[sid], "%s: cluster %r, local %r" % (sid, cluster_rows[sid], local_rows[sid]))
        check(load(os.path.join(cluster, sid + ".json"))["seed"] == load(os.path.join(local, sid + ".json"))["seed"],
              "%s graded with other inputs on the cluster" % sid)
    # --collect again by hand gives the same gradebook.
    before = open(os.path.join(cluster, "grades.csv")).read()
    ctx.batch(submissions, "--out", cluster, "--collect", expect=0, env=env)
    check(open(os.path.join(cluster, "grades.csv")).read() == before, "a second --collect changed grades.csv")
    check("14 of 14 students graded" in open(os.path.join(cluster, "summary.md")).read(), "summary.md after --collect")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("check")
    parser.add_argument("arg", nargs="?")
    args = parser.parse_args()
    ctx = Context(args)
    try:
        if args.check == "class":
            result = check_class(ctx, args.arg)
        elif args.check == "full":
            result = check_full(ctx)
        elif args.check == "resume":
            result = check_resume(ctx)
        elif args.check == "cli":
            result = check_cli(ctx)
        elif args.check == "appeal":
            result = check_appeal(ctx)
        elif args.check == "downloads":
            result = check_downloads(ctx)
        elif args.check == "unboxed":
            result = check_unboxed(ctx)
        elif args.check == "slurm":
            result = check_slurm(ctx, args.arg)
        else:
            print("unknown check " + args.check)
            return 2
    except CheckFailed as failure:
        print("FAILED: %s" % failure)
        return 1
    except subprocess.TimeoutExpired as timeout:
        print("FAILED: timed out: %s" % timeout)
        return 1
    if result == SKIP:
        return SKIP
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
