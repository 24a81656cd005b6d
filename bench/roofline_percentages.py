#!/usr/bin/env python3
"""roofline_percentages.py: where each lab's reference sits on this machine's roofline, against the read-only
ceiling and against the read-write one (issue 17: no honest reference above 105% of the ceiling it is held to).

    python3 bench/roofline_percentages.py                      # lab1 to lab4 with build/bin/grader
    python3 bench/roofline_percentages.py --labs lab5 lab8     # on a GPU machine

It grades reference/<lab> once (--format json) and prints, per timed item, the reference's fraction of its
roofline and the bound that sets it; for a memory-bound item also its GB/s against the read-only and the
read-write ceiling: the read-write figure is what the report showed before read-only ceilings existed (every
item was held to the read-write one). Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The machine figures of a report, by ceiling: (read-only, read-write) for one thread, all threads and the GPU.
PAIRS = [("read_bandwidth_1t_gbps", "bandwidth_1t_gbps"), ("read_bandwidth_all_gbps", "bandwidth_all_gbps"),
         ("gpu_read_bandwidth_gbps", "gpu_bandwidth_gbps")]


def full_name(lab):
    matches = sorted(d for d in os.listdir(os.path.join(ROOT, "labs")) if d == lab or d.startswith(lab + "-"))
    if not matches:
        sys.exit("no lab %s under %s/labs" % (lab, ROOT))
    return matches[0]


def counterpart(machine, ceiling):
    """The read-only and read-write figures of the pair `ceiling` belongs to."""
    for read, read_write in PAIRS:
        for name in (read, read_write):
            if machine.get(name) and abs(machine[name] - ceiling) <= 1e-6 * max(1.0, ceiling):
                return machine[read], machine[read_write]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--grader", default=os.path.join(ROOT, "build", "bin", "grader"))
    parser.add_argument("--labs", nargs="+", default=["lab1", "lab2", "lab3", "lab4"])
    args = parser.parse_args()
    for lab in map(full_name, args.labs):
        argv = [args.grader, "--root", ROOT, "grade", lab, "--submission", os.path.join(ROOT, "reference", lab),
                "--format", "json"]
        done = subprocess.run(argv, capture_output=True, text=True)
        try:
            report = json.loads(done.stdout)
        except ValueError:
            sys.exit("%s exited %d without a JSON report:\n%s" % (" ".join(argv), done.returncode, done.stderr[-2000:]))
        print("%s: %.1f / %.1f" % (lab, report["score"], report["max_score"]))
        for test in report["tests"]:
            m = test.get("measurement")
            if not m or not m["candidate"].get("gbps") or not m["ceilings"].get("memory_gbps"):
                continue
            gbps, ceiling = m["candidate"]["gbps"], m["ceilings"]["memory_gbps"]
            bound = m.get("roofline_bound", "")
            line = "  %-56s %6.1f%% of its roofline (%s)" % (test["name"][:56], 100 * m["roofline_fraction"], bound)
            pair = counterpart(report["machine"], ceiling)
            if pair and "memory" in bound:  # a memory-bound item: where it sits against each memory ceiling
                line += ": %.2f GB/s, read-only %.1f%%, read-write %.1f%%" % (gbps, 100 * gbps / pair[0],
                                                                            100 * gbps / pair[1])
            print(line)


if __name__ == "__main__":
    main()
