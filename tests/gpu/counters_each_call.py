#!/usr/bin/env python3
"""counters_each_call.py: every profiled call's counters reach its own items (issue 35), on a GPU.

The counters stage starts each call's profiled worker while the call before it is set up and profiled, and ends
each worker while the next one is set up (grader/src/pipeline/counters_stage.cpp): five workers overlap in turn for
lab 8's five timed items. Grades lab 8's reference (JSON, counters on) and checks that each item's counters came
from its own call: the launch seen names the item's own kernel, and the kernel count is the call's own (the atomic
version's one kernel, two for the others: the first two of each call, ncu's --launch-count). A call's counters
given to the item before or after it would name another kernel, or count another number.

    counters_each_call.py GRADER ROOT
Skips (77) without a GPU, without ncu, or where the driver does not permit profiling; says which.
"""
import json
import os
import subprocess
import sys
import tempfile

LAB = "lab8-reductions"
# The reference's kernel for each timed variant, and how many kernels ncu counts of its call.
EXPECTED = {"sequential": ("sequential_kernel", 2), "first_add": ("first_add_kernel", 2),
            "warp_shuffle": ("warp_shuffle_kernel", 2), "multi_element": ("multi_element_kernel", 2),
            "atomic": ("multi_element_kernel", 1)}


def skip(reason):
    print("skipped:", reason)
    sys.exit(77)


def main():
    grader, root = sys.argv[1], sys.argv[2]
    try:
        if subprocess.run(["nvidia-smi", "-L"], capture_output=True).returncode != 0:
            skip("no CUDA GPU (nvidia-smi -L failed)")
    except FileNotFoundError:
        skip("no CUDA GPU (no nvidia-smi)")
    with tempfile.TemporaryDirectory() as out:
        path = os.path.join(out, "report.json")
        done = subprocess.run([grader, LAB, "--submission", os.path.join(root, "reference", LAB), "--format", "json",
                               "-o", path], capture_output=True, text=True, timeout=900,
                              env={**os.environ, "GRADER_ROOT": root, "NO_COLOR": "1"})
        if done.returncode == 5:
            skip("the grader found no CUDA GPU")
        if not os.path.exists(path):
            print(done.stdout[-3000:], done.stderr[-3000:])
            sys.exit(1)
        with open(path) as f:
            report = json.load(f)
    with open(os.path.join(root, "labs", LAB, "lab.toml"), "rb") as f:
        import tomllib
        variants = {item["name"]: item["variant"] for item in tomllib.load(f).get("performance", [])}
    failures = []
    timed = [t for t in report["tests"] if t["name"] in variants]
    for test in timed:
        look = test.get("look") or {}
        words = look.get("counters", "")
        if "not installed" in words or "not permitted" in words:
            skip(words)
        kernels = {r["key"]: r.get("yours_value") for r in look.get("facts", [])}.get("profiled_kernels")
        kernel, count = EXPECTED[variants[test["name"]]]
        ok = words.startswith("counters: ") and kernel in words and kernels == count
        print(("ok   " if ok else "FAIL ") + "%s: %s kernels, %s" % (test["name"], kernels, words))
        if not ok:
            failures.append(test["name"])
    if len(timed) != len(EXPECTED):
        print("FAIL %d timed items, not %d" % (len(timed), len(EXPECTED)))
        failures.append("items")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
