"""e2e_concurrent.py: gradings started together, as a TA's batch or a shared course server starts them. Registered
into e2e.py's CHECKS by checks(e2e), like e2e_replay.py.

    concurrent-gradings   32 gradings at once (lab1 --dump-case), three rounds: every one succeeds. They once shared
                          one process limit (every worker was `nobody`) and could delete each other's work folder
                          (bench/concurrent_gradings.py prints the figures of more rounds)
    concurrent-openmp     lab3's OpenMP reference, graded --quick while 16 other gradings run: every correctness item
                          passes (its threads once failed to start when the others' workers used up the shared count)
    lab3-thread-bomb      a lab3 submission whose dot asks for 2000 threads, past the lab's `processes` (512): its own
                          limit still stops it, with its verdict (tests/submissions/lab3/thread_bomb)
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import concurrent_gradings  # noqa: E402

COUNT = 32
ROUNDS = 3


def check_concurrent_gradings(e2e, grader, args):
    failures = concurrent_gradings.rounds(os.path.abspath(grader.binary), os.path.abspath(grader.root), COUNT, ROUNDS)
    e2e.check(not failures, "%d of %d gradings started %d at a time failed:\n%s" % (
        len(failures), COUNT * ROUNDS, COUNT, "\n".join(failures)))


def check_concurrent_openmp(e2e, grader, args):
    env = dict(os.environ, GRADER_ROOT=os.path.abspath(grader.root), NO_COLOR="1")
    with tempfile.TemporaryDirectory(prefix="e2e-concurrent-openmp-") as work:
        os.chmod(work, 0o755)
        # Each of the others grades again and again until lab3's grading is over.
        stop = os.path.join(work, "stop")
        others = []
        for n in range(16):
            cwd = tempfile.mkdtemp(prefix="run-%d-" % n, dir=work)
            others.append(subprocess.Popen(
                ["sh", "-c", 'while [ ! -e "$1" ]; do "$0" lab1 --dump-case "row pointers/1 x 1" || exit 1; done',
                 os.path.abspath(grader.binary), stop],
                cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        try:
            run = grader.run("grade", "lab3", "--submission", os.path.join(grader.root, "reference", "lab3-openmp"),
                             "--quick", "--format", "json")
        finally:
            open(stop, "w").close()
            failed = []
            for process in others:
                _, err = process.communicate(timeout=900)
                if process.returncode != 0:
                    failed.append(err.strip()[-300:])
        report = run.json()
        wrong = [(t["name"], t["status"], t.get("details")) for t in report["tests"]
                 if t["status"] not in ("passed", "not_run")]
        e2e.check(not wrong, "lab3's reference, graded beside 16 other gradings, failed items: %r" % wrong)
        e2e.check(run.code == e2e.ALL_PASSED, "lab3's reference exited %d" % run.code)
        e2e.check(not failed, "%d of the gradings beside it failed:\n%s" % (len(failed), "\n".join(failed)))


def check_lab3_thread_bomb(e2e, grader, args):
    submission = os.path.join(grader.root, "tests", "submissions", "lab3", "thread_bomb")
    run = grader.run("grade", "lab3", "--submission", submission, "--quick", "--format", "json")
    report = run.json()
    e2e.check(run.code == e2e.GRADED_FAILURES, "exit %d, expected %d" % (run.code, e2e.GRADED_FAILURES))
    for test in report["tests"]:
        if test["status"] == "not_run":
            continue
        if test["name"].startswith("dot product"):
            e2e.check(test["status"] == "no_completion" and "Thread creation failed" in test["details"],
                      "item %r is %r (%s), expected no_completion naming libgomp's failed thread creation" % (
                          test["name"], test["status"], test["details"]))
        else:
            e2e.check(test["status"] == "passed", "item %r is %r (%s): only dot asks for too many threads" % (
                test["name"], test["status"], test["details"]))


def checks(e2e):
    def bound(check):
        return lambda grader, args: check(e2e, grader, args)
    return {"concurrent-gradings": bound(check_concurrent_gradings), "concurrent-openmp": bound(check_concurrent_openmp),
            "lab3-thread-bomb": bound(check_lab3_thread_bomb)}
