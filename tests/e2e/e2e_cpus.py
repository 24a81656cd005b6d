"""e2e_cpus.py: a grader given some of a machine's CPUs (taskset, a SLURM task, a container's cpuset) counts
those, not the machine's. Registered into e2e.py's CHECKS by checks(e2e), like e2e_replay.py.

    given-one-cpu   the grader, its calibration and its workers run on one CPU of several, with OMP_NUM_THREADS=3
                    in the environment, as a cluster's login shell may set it: the report's `threads` (what lab3
                    runs its "all threads" cases with) is 1, and the calibration's all-thread figures were timed on
                    one thread (OpenMP told the grader's count, not the shell's)
"""
import glob
import json
import os
import tempfile


def check_given_one_cpu(e2e, grader, args):
    ours = sorted(os.sched_getaffinity(0))
    if len(ours) < 2:
        raise e2e.Skip("this machine gives the tests one CPU, so one CPU of several cannot be told from all of them")
    saved_affinity = set(ours)
    saved = {name: os.environ.get(name) for name in ("GRADER_CACHE", "OMP_NUM_THREADS")}
    with tempfile.TemporaryDirectory(prefix="e2e-given-one-cpu-") as cache:
        # A fresh cache for the calibration this test reads, with lab1's builds from the build's cache (--cache)
        # where they are: compiled again here, on one CPU, they were most of this test's time.
        if args.cache:
            e2e.copy_lab_builds(args.cache, cache, "lab1-matvec")
        os.environ["GRADER_CACHE"] = cache
        os.environ["OMP_NUM_THREADS"] = "3"
        os.sched_setaffinity(0, {ours[-1]})  # the grader inherits it, as it would from taskset
        try:
            quick = grader.run("grade", "lab1", "--submission", os.path.join(args.root, "reference", "lab1-matvec"),
                               "--quick", "--format", "json")
            calibrate = grader.run("calibrate")
        finally:
            os.sched_setaffinity(0, saved_affinity)
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
        e2e.check(quick.code == e2e.ALL_PASSED, "lab1's reference, --quick, on one CPU exited %d" % quick.code)
        threads = quick.json()["machine"]["threads"]
        e2e.check(threads == 1, "the report says %r threads on a grader given one CPU of %d" % (threads, len(ours)))
        e2e.check(calibrate.code == e2e.ALL_PASSED, "calibrate on one CPU exited %d" % calibrate.code)
        [kept] = glob.glob(os.path.join(cache, "calibration", "*.json"))
        calibration = json.load(open(kept))
    print(json.dumps(calibration, indent=1))
    e2e.check(calibration["threads"] == 1, "the calibration's all-thread figures ran %r threads on one CPU (the "
              "shell's OMP_NUM_THREADS=3, or the machine's %d CPUs)" % (calibration["threads"], len(ours)))


def checks(e2e):
    return {"given-one-cpu": lambda grader, args: check_given_one_cpu(e2e, grader, args)}
