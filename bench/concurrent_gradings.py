#!/usr/bin/env python3
"""concurrent_gradings.py: how many of N gradings started at once fail, over R rounds (issues 32 and 38).

Each grading is `grader lab1 --dump-case "row pointers/1 x 1"`: it builds the lab (once, on a warm cache), starts
its judge in the sandbox and writes one case. Started together, gradings once shared one process limit (every
worker ran as `nobody`) and could delete each other's work folder. Prints one line per round and the total.

    python3 bench/concurrent_gradings.py --grader build/bin/grader --root . --count 32 --rounds 12
"""
import argparse
import os
import subprocess
import sys
import tempfile

COMMAND = ["lab1", "--dump-case", "row pointers/1 x 1"]


def one_round(grader, root, count, work):
    """Starts `count` gradings at once; returns (failures, the first lines of each failure's stderr)."""
    env = dict(os.environ, GRADER_ROOT=root, NO_COLOR="1")
    started = []
    for n in range(count):
        cwd = tempfile.mkdtemp(prefix="run-%d-" % n, dir=work)  # --dump-case writes its files in its cwd
        started.append(subprocess.Popen([grader] + COMMAND, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True))
    reasons = []
    for process in started:
        _, err = process.communicate(timeout=900)
        if process.returncode != 0:
            reasons.append("exit %d: %s" % (process.returncode, " ".join(err.strip().splitlines()[-2:])[:300]))
    return reasons


def rounds(grader, root, count, total_rounds, show=print):
    """Runs the rounds; returns every failure's reason."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="concurrent-gradings-") as work:
        os.chmod(work, 0o755)
        subprocess.run([grader] + COMMAND, cwd=work, env=dict(os.environ, GRADER_ROOT=root), capture_output=True)  # warm
        for number in range(total_rounds):
            reasons = one_round(grader, root, count, work)
            show("round %d: %d of %d failed" % (number + 1, len(reasons), count))
            for reason in reasons:
                show("    " + reason)
            failures += reasons
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--count", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    failures = rounds(os.path.abspath(args.grader), os.path.abspath(args.root), args.count, args.rounds)
    print("%d of %d gradings failed (%d rounds of %d started at once)" % (
        len(failures), args.count * args.rounds, args.rounds, args.count))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
