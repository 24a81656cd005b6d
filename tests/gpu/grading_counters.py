#!/usr/bin/env python3
"""grading_counters.py: the counters of a real grading (issue 33, "Look inside"), on a GPU.

Grades lab 5's reference and skeleton on its square item alone (--only, JSON) and checks what Nsight Compute read
of one extra call of each: the skeleton's thread-per-row loads take more sectors per request than the reference's
(coalesced: 16 or fewer), the reference reads DRAM near its peak, the look carries the ncu version and the launch
seen, and no counter hint of lab 5 or lab 7 holds for the reference's counters. Then the reference once more with
--no-counters: the same full points, and no counter in its report (counters never change a point).

    grading_counters.py GRADER ROOT
Skips (77) without a GPU, without ncu, or where the driver does not permit profiling; says which.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import tomllib

LAB = "lab5-gemv-warps"
ITEM = "square 10000: speedup over one thread per row"


def skip(reason):
    print("skipped:", reason)
    sys.exit(77)


def grade(grader, root, tree, *extra):
    with tempfile.TemporaryDirectory() as out:
        report_path = os.path.join(out, "report.json")
        command = [grader, LAB, "--submission", os.path.join(root, tree, LAB), "--only", ITEM, "--format", "json",
                   "-o", report_path, *extra]
        done = subprocess.run(command, capture_output=True, text=True, timeout=900,
                              env={**os.environ, "GRADER_ROOT": root, "NO_COLOR": "1"})
        if done.returncode == 5:
            skip("the grader found no CUDA GPU")
        if not os.path.exists(report_path):
            print(done.stdout[-3000:], done.stderr[-3000:])
            sys.exit(1)
        with open(report_path) as f:
            return json.load(f)


def item_of(report):
    for test in report["tests"]:
        if test["name"] == ITEM:
            return test
    raise SystemExit("no item " + ITEM)


def counters_of(test, side):
    look = test.get("look") or {}
    values = {}
    for row in look.get("facts", []):
        if row["key"] in COUNTERS and row.get(side + "_value") is not None:
            values[row["key"]] = row[side + "_value"]
    return values, look.get("counters", "")


# The counter facts (grader/src/inspect/fact_list.cpp, source gpu_counter).
COUNTERS = {"profiled_kernels", "dram_throughput", "sectors_per_load", "sectors_per_store", "bank_conflicts",
            "launch_occupancy", "achieved_occupancy", "thread_efficiency", "fma_pipe", "tensor_executed"}


def hint_holds(condition, facts):
    """A hint's `when` (comparisons joined by nothing but the list) on the facts given; a missing fact: False."""
    try:
        return bool(eval(condition, {"__builtins__": {}}, dict(facts)))
    except NameError:
        return False


def main():
    grader, root = sys.argv[1], sys.argv[2]
    try:
        if subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
            skip("no CUDA GPU (nvidia-smi -L failed)")
    except FileNotFoundError:
        skip("no CUDA GPU (no nvidia-smi)")
    failures = []

    def check(what, ok):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    reference = item_of(grade(grader, root, "reference"))
    ref, ref_line = counters_of(reference, "yours")
    print("reference:", ref_line)
    print("  ", json.dumps(ref, sort_keys=True))
    if "not installed" in ref_line or "not permitted" in ref_line:
        skip(ref_line)
    skeleton = item_of(grade(grader, root, "skeletons"))
    ske, ske_line = counters_of(skeleton, "yours")
    print("skeleton:", ske_line)
    print("  ", json.dumps(ske, sort_keys=True))

    check("the reference's look names the ncu version", re.match(r"counters: Nsight Compute \d{4}\.", ref_line) is not None)
    check("the reference's look gives the launch seen (theoretical occupancy)", "theoretical occupancy" in ref_line)
    check("the reference's loads are coalesced: at most 16 sectors per request", ref.get("sectors_per_load", 99) <= 16)
    check("the skeleton's loads take more sectors per request than the reference's",
          ske.get("sectors_per_load", 0) > ref.get("sectors_per_load", 99))
    check("the reference reads DRAM at 60% of its peak or more", ref.get("dram_throughput", 0) >= 0.6)
    check("the reference's achieved occupancy is read", 0 < ref.get("achieved_occupancy", 0) <= 1)
    check("the reference earns the item's full points", reference["score"] == reference["max_score"])
    for lab in (LAB, "lab7-tiled-gemm"):
        with open(os.path.join(root, "labs", lab, "lab.toml"), "rb") as f:
            spec = tomllib.load(f)
        for item in spec.get("performance", []):
            for hint in item.get("hints", []):
                when = hint.get("when", [])
                when = [when] if isinstance(when, str) else when
                if not any(name in c for c in when for name in COUNTERS):
                    continue
                check(f"{lab}: no counter hint holds for the reference ({' and '.join(when)})",
                      not all(hint_holds(c, ref) for c in when))

    plain = item_of(grade(grader, root, "reference", "--no-counters"))
    none, none_line = counters_of(plain, "yours")
    check("--no-counters: no counter rows and no counters line", not none and not none_line)
    check("--no-counters: the same points", plain["score"] == reference["score"])
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
