"""e2e_calibration.py: what `grader calibrate` calls busy. Registered into e2e.py's CHECKS by checks(e2e), like
e2e_replay.py.

    calibrate-busy   one program spinning on every CPU while `grader calibrate` runs: other programs took far more
                     than a tenth of the CPUs while all threads were timed, so the calibration must say BUSY, record
                     that share (`others_share`), and leave its all-thread figures out of the scaling tiers

The opposite case (a quiet machine whose cores are uneven must not read busy) needs a quiet machine, which a test
suite running two tests at once is not: it was shown on the H100 host's 16 vCPUs, whose FP64 peak scales 7.9x and
which the old rule (threads on a CPU for 85% of the wall time) called busy in every round (docs/design.md).
"""
import glob
import json
import os
import subprocess
import sys
import tempfile


def check_calibrate_busy(e2e, grader, args):
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    with tempfile.TemporaryDirectory(prefix="e2e-calibrate-busy-") as cache:
        saved = os.environ.get("GRADER_CACHE")
        os.environ["GRADER_CACHE"] = cache
        try:
            run = grader.run("calibrate")
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
            if saved is None:
                os.environ.pop("GRADER_CACHE", None)
            else:
                os.environ["GRADER_CACHE"] = saved
        e2e.check(run.code == e2e.ALL_PASSED, "calibrate exited %d" % run.code)
        [kept] = glob.glob(os.path.join(cache, "calibration", "*.json"))
        calibration = json.load(open(kept))
    print(run.stdout)
    e2e.check(calibration.get("busy") is True, "a calibration taken with every CPU spinning is not busy: %r" %
              calibration)
    # Each CPU had a spinner and a calibration thread: others took about half of every CPU.
    e2e.check(calibration.get("others_share", 0) > 0.25, "others_share %r: the spinners' CPU time was not counted" %
              calibration.get("others_share"))
    e2e.check("BUSY: other programs took" in run.stdout, "calibrate does not say BUSY with the share:\n" + run.stdout)
    # Busy from the first round on, so the second busy round in a row ends it (cpu_calibrate.cpp), not the fifth.
    e2e.check(calibration.get("rounds") == 2, "a calibration busy throughout took %r rounds, expected 2" %
              calibration.get("rounds"))


def checks(e2e):
    return {"calibrate-busy": lambda grader, args: check_calibrate_busy(e2e, grader, args)}
