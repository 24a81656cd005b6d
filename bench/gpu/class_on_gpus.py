#!/usr/bin/env python3
"""class_on_gpus.py: a class of lab5 submissions graded with `grader batch --gpus 1` and then with more GPUs (issues
13 and 35), on a machine with at least two NVIDIA GPUs. Prints each run's wall time and its speedup over one GPU, and
checks that every run agrees with the one-GPU run: the same status for every student and every correctness item, and
every performance item's metric within the other run's 95% interval (its noise band) or, failing that, the same
points. For each run it also says where the GPUs' time went (from the reports' `stage_seconds`): the GPU-seconds the
class needed (every stage but the build and the wait for a GPU: what a grading holds its GPU for), the ideal wall
time on N GPUs (that over N, and never under the longest grading) and what the run spent beyond it (the batch's
start and first builds, the ends of the queue, gradings slowed by each other's CPU work), with the three longest
gradings.

    python3 bench/gpu/class_on_gpus.py                        # build/bin/grader, 16 students, 1 GPU and all GPUs
    python3 bench/gpu/class_on_gpus.py --grader .carry/bin/grader --students 24 --run 1 --run 2 --run 4
    python3 bench/gpu/class_on_gpus.py --run 1; python3 bench/gpu/class_on_gpus.py --run 4 --reuse   # two commands

--run N grades the class with --gpus N (repeatable; default: 1 and every GPU visible); --reuse takes a run already in
OUT (OUT/gpusN/seconds.txt) instead of grading again, so the runs can be several commands under a per-command time
limit. Every GPU that any run uses is calibrated first, so no run pays for it (a run on GPUs not yet calibrated
calibrates them inside its own wall time).

The class: reference copies (half of it), skeleton copies, submissions that do not compile, and reference copies
with a wrong row (correctness fails, nothing timed). One batch seed for every run, so every student gets the same
inputs. Exit status 0 when the runs agree and each run on N GPUs is at least --min-efficiency (default 0.9: 1.8x on
2, 3.6x on 4) times N as fast as on one; 1 otherwise; 77 with fewer than two GPUs. A JSON summary goes to
OUT/summary.json. Standard library only.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = 13013


def make_class(folder, students):
    shutil.rmtree(folder, ignore_errors=True)
    reference = open(os.path.join(ROOT, "reference", "lab5-gemv-warps", "gemv.cu")).read()
    skeleton = open(os.path.join(ROOT, "skeletons", "lab5-gemv-warps", "gemv.cu")).read()
    kinds = {}
    for i in range(students):
        # Half reference, a quarter skeleton, the rest split between a build error and a wrong answer.
        kind = "reference" if i % 4 in (0, 2) else "skeleton" if i % 4 == 1 else ("broken" if i % 8 == 3 else "wrong")
        sid = "s%02d-%s" % (i, kind)
        os.makedirs(os.path.join(folder, sid))
        text = {"reference": reference, "skeleton": skeleton,
                "broken": reference + "\nthis line does not compile;\n",
                "wrong": reference.replace("y[row] = (s0 + s1) + (s2 + s3);", "y[row] = (s0 + s1) + (s2 + s3) + 1.0;")}[kind]
        with open(os.path.join(folder, sid, "gemv.cu"), "w") as f:
            f.write(text)
        kinds[sid] = kind
    return kinds


def run_batch(grader, submissions, out, gpus, jobs, reuse):
    if reuse and os.path.exists(os.path.join(out, "seconds.txt")):
        print("reusing %s" % out)
        return float(open(os.path.join(out, "seconds.txt")).read()), read_reports(out)
    shutil.rmtree(out, ignore_errors=True)
    argv = [grader, "--root", ROOT, "batch", "lab5", submissions, "--out", out, "--gpus", str(gpus), "--seed", str(SEED),
            "--jobs", str(jobs), "--no-bundles"]
    print("$ " + " ".join(argv), flush=True)
    start = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1"))
    seconds = time.monotonic() - start
    print(proc.stdout[-3000:] + proc.stderr[-3000:] + "(exit %d, %.1f s)" % (proc.returncode, seconds), flush=True)
    with open(os.path.join(out, "seconds.txt"), "w") as f:
        f.write("%.3f\n" % seconds)
    return seconds, read_reports(out)


def read_reports(out):
    reports = {}
    for name in os.listdir(out):
        if name.endswith(".json") and not name.startswith("."):
            with open(os.path.join(out, name)) as f:
                r = json.load(f)
            reports[r["batch"]["student"]] = r
    return reports


def compare(one, two):
    """Differences between the two runs' reports, as sentences; empty when they agree within noise."""
    problems = []
    if sorted(one) != sorted(two):
        problems.append("students differ: %r vs %r" % (sorted(one), sorted(two)))
    for sid in sorted(set(one) & set(two)):
        a, b = one[sid], two[sid]
        if a["status"] != b["status"]:
            problems.append("%s: status %s vs %s" % (sid, a["status"], b["status"]))
        tests_b = {t["name"]: t for t in b["tests"]}
        for ta in a["tests"]:
            tb = tests_b.get(ta["name"])
            if tb is None:
                problems.append("%s: item %s missing in the second run" % (sid, ta["name"]))
                continue
            if ta["kind"] == "correctness":
                if ta["status"] != tb["status"] or ta["score"] != tb["score"]:
                    problems.append("%s: %s %s/%s vs %s/%s" % (sid, ta["name"], ta["status"], ta["score"], tb["status"], tb["score"]))
                continue
            ma, mb = ta.get("measurement"), tb.get("measurement")
            if (ma is None) != (mb is None):
                problems.append("%s: %s timed in one run only" % (sid, ta["name"]))
                continue
            if ma is None:
                if ta["score"] != tb["score"]:
                    problems.append("%s: %s scored %s vs %s untimed" % (sid, ta["name"], ta["score"], tb["score"]))
                continue
            low_a, high_a = ma["metric_interval"]
            low_b, high_b = mb["metric_interval"]
            overlap = low_a <= high_b and low_b <= high_a
            if not overlap and ta["score"] != tb["score"]:
                problems.append("%s: %s metric %.3g [%.3g, %.3g] -> %s points vs %.3g [%.3g, %.3g] -> %s points" %
                                (sid, ta["name"], ma["metric_value"], low_a, high_a, ta["score"], mb["metric_value"], low_b,
                                 high_b, tb["score"]))
    return problems


# The stages a grading does not hold its GPU for (batch/gpu_slots.h: a GPU is claimed once the build is done and held
# through correctness and timing); every other stage of the report's stage_seconds counts as GPU time.
OFF_GPU_STAGES = ("build", "staging", "inspect", "waiting", "calibration")


def where_the_time_went(n, seconds, reports):
    """One run's wall time against what its GPUs had to do."""
    held = {}
    for sid, report in reports.items():
        stages = {s["stage"]: s["seconds"] for s in report.get("stage_seconds", [])}
        held[sid] = sum(v for k, v in stages.items() if not k.startswith(OFF_GPU_STAGES))
    total = sum(held.values())
    longest = max(held.values()) if held else 0
    ideal = max(total / n, longest)
    slowest = sorted(held.items(), key=lambda kv: -kv[1])[:3]
    return ("--gpus %d: %.1f s wall; the GPUs' work %.1f GPU-s (%d students), ideal %.1f s on %d (longest grading %.1f s: "
            "%s); %.1f s beyond the ideal (%.0f%%)" %
            (n, seconds, total, len(held), ideal, n, longest, ", ".join("%s %.1f" % kv for kv in slowest),
             seconds - ideal, 100 * (seconds - ideal) / seconds if seconds else 0))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", default=os.path.join(ROOT, "build", "bin", "grader"))
    parser.add_argument("--students", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=max(4, os.cpu_count() or 4))
    parser.add_argument("--out", default="/tmp/class-on-gpus")
    parser.add_argument("--min-efficiency", type=float, default=0.9, help="speedup over one GPU wanted per GPU")
    parser.add_argument("--run", type=int, action="append", help="grade with --gpus N (default: 1 and every GPU)")
    parser.add_argument("--reuse", action="store_true", help="take a run already in OUT instead of grading again")
    args = parser.parse_args()

    listed = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,name", "--format=csv,noheader"], capture_output=True,
                            text=True) if shutil.which("nvidia-smi") else None
    gpus = [l for l in listed.stdout.splitlines() if l.strip()] if listed and listed.returncode == 0 else []
    if len(gpus) < 2:
        print("SKIP: this needs two NVIDIA GPUs; nvidia-smi lists %d" % len(gpus))
        return 77
    print("GPUs:\n  " + "\n  ".join(gpus))
    # A grading on --gpus asks nvidia-smi about its GPU three times while it holds it (the ECC count when it claims
    # it, its health and the ECC count again at the end: batch/gpu_batch.cpp): what one such question costs here.
    uuid = gpus[0].split(",")[1].strip()
    start = time.monotonic()
    subprocess.run(["nvidia-smi", "-i", uuid, "--query-gpu=ecc.errors.uncorrected.volatile.total",
                    "--format=csv,noheader,nounits"], capture_output=True)
    print("one nvidia-smi question about a GPU: %.2f s (three per grading, the GPU held and idle)" %
          (time.monotonic() - start))
    os.makedirs(args.out, exist_ok=True)
    runs = sorted(set(args.run or [1, len(gpus)]))
    if any(n < 1 or n > len(gpus) for n in runs):
        print("--run N wants 1 <= N <= %d (the GPUs visible), got %s" % (len(gpus), runs))
        return 2
    if not (args.reuse and os.path.isdir(os.path.join(args.out, "class"))):
        make_class(os.path.join(args.out, "class"), args.students)
        # Calibrate every GPU a run may use before timing the class, so no run pays for it. (Calibrating only
        # GPUs 0 and 1 here left a 4-GPU run calibrating the other two inside its own wall time.)
        subprocess.run([args.grader, "--root", ROOT, "calibrate", "--gpus", str(max(runs))], check=False)
    kinds = {sid: sid.split("-", 1)[1] for sid in os.listdir(os.path.join(args.out, "class"))}
    timed = {}
    for n in sorted(set(runs) | {1}):
        out = os.path.join(args.out, "gpus%d" % n)
        if n in runs or (args.reuse and os.path.exists(os.path.join(out, "seconds.txt"))):
            timed[n] = run_batch(args.grader, os.path.join(args.out, "class"), out, n, args.jobs, args.reuse and n not in runs)
    for n, (seconds, reports) in sorted(timed.items()):
        print(where_the_time_went(n, seconds, reports))
    if 1 not in timed or len(timed) < 2:
        print("graded with --gpus %s; run --gpus 1 and another with --reuse to compare" % sorted(timed))
        return 0
    seconds_1, reports_1 = timed[1]
    summary = {"students": len(kinds), "kinds": {k: list(kinds.values()).count(k) for k in set(kinds.values())},
               "seconds_gpus_1": round(seconds_1, 1), "runs": {}}
    ok = True
    for n, (seconds_n, reports_n) in sorted(timed.items()):
        if n == 1:
            continue
        problems = compare(reports_1, reports_n)
        used = sorted({(r["machine"].get("gpu_index"), r["machine"].get("gpu_uuid")) for r in reports_n.values()
                       if r["machine"].get("gpu_uuid")})
        speedup = seconds_1 / seconds_n if seconds_n > 0 else 0
        summary["runs"][n] = {"seconds": round(seconds_n, 1), "speedup": round(speedup, 2), "gpus_used": used,
                              "differences": problems}
        passed = not problems and speedup >= args.min_efficiency * n and len(used) == n
        ok = ok and passed
        print("%s: --gpus 1 %.1f s, --gpus %d %.1f s, x%.2f (want >= %.2f); %d difference(s) beyond noise; GPUs used: %d" %
              ("PASS" if passed else "FAIL", seconds_1, n, seconds_n, speedup, args.min_efficiency * n, len(problems),
               len(used)))
        for problem in problems:
            print("  " + problem)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
