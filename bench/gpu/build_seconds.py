#!/usr/bin/env python3
"""build_seconds.py: where a GPU lab grading's seconds go before its first correctness case (issue 35): the build of
the submission (staging, the lab's cached build, nvcc, the link policy, the link) and the inspect stage, for an
older grader and this one, on the same machine, in the same run, interleaved.

    python3 bench/gpu/build_seconds.py [--rounds N] [--kind reference|skeleton] [--arg=OPTION]... [LAB...]
        (default lab5 lab6 lab7 lab8; OLD_GRADER and OLD_ROOT name the older grader and its course tree)

Each lab's submission is graded `--hidden --no-counters --format json` with one seed, warm (one grading of each
side first, untimed, builds the lab's harness and judge and the reference's facts into each side's own cache). It
prints per grading its wall time and the report's stages up to correctness, then per lab the medians of each side.
nvcc needs no GPU: on a machine without one (the CPU VM) a grading ends after the build and the inspect stage
("built, but not run"), which is exactly the part measured here. On a GPU machine the gradings run in full; pass
--arg=--quick to stop after correctness (the inspect stage then runs beside correctness in a grader that overlaps
them, and `inspect` is what the grading waited for it).

It also prints, once per lab, nvcc's own phases for the lab's reference (`nvcc -time`, the lab's flags): which of
them the compile's seconds are, and what the compile would take with its device half (cicc, ptxas) and its host
front end (cudafe++) side by side, as nvcc does not run them; and `nvidia-smi`'s answer time where there is one (the
grader asks it for the GPU's architecture). Standard library only.
"""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LABS = {"lab5": "lab5-gemv-warps", "lab6": "lab6-streams", "lab7": "lab7-tiled-gemm", "lab8": "lab8-reductions"}
FILES = {"lab5": "gemv", "lab6": "streams", "lab7": "sgemm", "lab8": "reductions"}
SEED = 35035
BUILD_STAGES = ["staging", "build (lab)", "build (submission)", "inspect"]


def grade(side, lab, kind, extra):
    folder = "reference" if kind == "reference" else "skeletons"
    env = dict(os.environ, GRADER_CACHE=side["cache"], NO_COLOR="1")
    argv = [side["grader"], "--root", side["root"], "grade", lab, "--submission",
            os.path.join(side["root"], folder, LABS[lab]), "--hidden", "--no-counters", "--format", "json",
            "--seed", str(SEED)] + extra
    start = time.monotonic()
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    seconds = time.monotonic() - start
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return {"seconds": seconds, "error": "exit %d, no JSON report: %s" % (done.returncode, done.stderr[-400:])}
    stages = {s["stage"]: s["seconds"] for s in report.get("stage_seconds", [])}
    return {"seconds": seconds, "stages": stages, "score": report.get("score", 0),
            "facts": not report.get("facts_unavailable")}


def nvcc_phases(lab):
    """nvcc -time's phases (milliseconds) for the lab's reference, compiled as the grader compiles a submission."""
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.path.exists(nvcc):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(ROOT, "reference", LABS[lab], FILES[lab] + ".cu")
        argv = [nvcc, "-std=c++20", "-arch=sm_90", "-O3", "-I" + os.path.join(ROOT, "labs", LABS[lab]),
                "-I" + os.path.join(ROOT, "grader", "labkit", "include"), "-c", source, "-o",
                os.path.join(tmp, "x.cu.o"), "-MD", "-MF", os.path.join(tmp, "x.d"), "--keep", "--keep-dir", tmp,
                "-time", os.path.join(tmp, "time.csv")]
        start = time.monotonic()
        if subprocess.run(argv, capture_output=True).returncode != 0:
            return None
        wall = time.monotonic() - start
        phases = []
        with open(os.path.join(tmp, "time.csv")) as table:
            for row in csv.reader(table):
                if len(row) >= 8 and row[1].strip() not in ("phase name", "nvcc (driver)"):
                    phases.append((row[1].strip(), float(row[6])))
        return wall, phases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("labs", nargs="*", default=["lab5", "lab6", "lab7", "lab8"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--kind", default="reference", choices=["reference", "skeleton"])
    parser.add_argument("--arg", action="append", default=[], help="one more option for every grading")
    parser.add_argument("--grader", default=os.environ.get("GRADER", os.path.join(ROOT, "build", "bin", "grader")))
    parser.add_argument("--old-grader", default=os.environ.get("OLD_GRADER"))
    parser.add_argument("--old-root", default=os.environ.get("OLD_ROOT"))
    parser.add_argument("--shared-cache", help="one grader cache for both sides (where the lab's build and the "
                        "reference's facts are the same bytes for both: a change that leaves the lab kit and the "
                        "compile alone); each side has its own otherwise")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="build-seconds-")
    cache = lambda name: args.shared_cache or os.path.join(work, name)
    sides = [{"name": "new", "grader": args.grader, "root": ROOT, "cache": cache("new")}]
    if args.old_grader and args.old_root:
        sides.insert(0, {"name": "old", "grader": args.old_grader, "root": args.old_root, "cache": cache("old")})
    smi = shutil.which("nvidia-smi")
    if smi:
        took = []
        for _ in range(3):
            start = time.monotonic()
            subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True)
            took.append(time.monotonic() - start)
        print("nvidia-smi --query-gpu=compute_cap: %s s" % ", ".join("%.3f" % t for t in took))
    else:
        print("no nvidia-smi: gradings end after the build and the inspect stage")
    for side in sides:
        print("%s: %s on %s" % (side["name"], side["grader"], side["root"]))

    for lab in args.labs:
        print("\n%s (%s), --hidden --no-counters %s" % (lab, args.kind, " ".join(args.arg)))
        phases = nvcc_phases(lab)
        if phases:
            wall, rows = phases
            print("  nvcc -time on the reference: %.2f s wall; %s" %
                  (wall, ", ".join("%s %.2f" % (name, ms / 1000) for name, ms in rows)))
            # nvcc runs its phases one after the other. The device half (preprocessing 1, cicc, ptxas, fatbinary) and
            # the host front end (preprocessing 4, cudafe++) need nothing of each other; the host compile needs both
            # (it embeds the fatbin). What a compile that ran the two halves side by side would take:
            ms = dict(rows)
            device = sum(ms.get(k, 0) for k in ("gcc (preprocessing 1)", "cicc", "ptxas", "fatbinary"))
            host = sum(ms.get(k, 0) for k in ("gcc (preprocessing 4)", "cudafe++"))
            total = sum(ms.values())
            path = max(device, host) + ms.get("gcc (compiling)", 0)
            print("  its phases one after another %.2f s; the two halves side by side %.2f s (%.2f s less)" %
                  (total / 1000, path / 1000, (total - path) / 1000))
        for side in sides:  # warm: the lab's build and the reference's facts, in each side's own cache
            warm = grade(side, lab, args.kind, args.arg)
            if "error" in warm:
                print("  %s warm-up failed: %s" % (side["name"], warm["error"]))
        seen = {side["name"]: [] for side in sides}
        for round_index in range(args.rounds):
            for side in (sides if round_index % 2 == 0 else list(reversed(sides))):
                g = grade(side, lab, args.kind, args.arg)
                if "error" in g:
                    print("  %-4s %6.2f s  %s" % (side["name"], g["seconds"], g["error"]))
                    continue
                seen[side["name"]].append(g)
                shown = "  ".join("%s %.2f" % (s, g["stages"][s]) for s in BUILD_STAGES if s in g["stages"])
                print("  %-4s %6.2f s  %5.1f pts  facts %s  %s" %
                      (side["name"], g["seconds"], g["score"], "read" if g["facts"] else "NOT READ", shown))
        for side in sides:
            runs = seen[side["name"]]
            if not runs:
                continue
            medians = {s: statistics.median(r["stages"].get(s, 0) for r in runs) for s in BUILD_STAGES}
            before = medians["staging"] + medians["build (lab)"] + medians["build (submission)"] + medians["inspect"]
            print("  median %-4s wall %.2f s; build %.2f (submission %.2f), inspect %.2f; up to correctness %.2f s" %
                  (side["name"], statistics.median(r["seconds"] for r in runs),
                   medians["staging"] + medians["build (lab)"] + medians["build (submission)"],
                   medians["build (submission)"], medians["inspect"], before))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
