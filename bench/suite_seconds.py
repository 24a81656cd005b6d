#!/usr/bin/env python3
"""suite_seconds.py: where the test suite's wall time goes (issue 35), from the logs of `ctest -j N` runs.

    ctest --test-dir build --output-on-failure -j 2 2>&1 | tee run.log
    python3 bench/suite_seconds.py --build build run.log [more.log ...]

CTest prints when it starts each test and, later, the test's seconds. Replayed in that order, with one slot per -j,
the log gives back the run's timeline: when each test ran, beside which, and how long a slot stood empty. With
--build, each test's properties (`ctest --show-only=json-v1`) say which ones had the machine to themselves
(RUN_SERIAL, which CTest starts only once nothing else runs, and beside which it starts nothing). Then the wall
time is about the serial tests' sum plus the others' sum over the slots, and a second of a serial test costs the
suite a second, where a second of another test costs it 1/N.

It prints, per log: the wall time replayed, the slots' empty seconds, the serial and the parallel sums; then the
tests ranked by their median seconds over the logs, each with its seconds in every log, whether serial, and its
share of the wall time (serial: all of it; parallel: 1/N). Several logs of the same suite (rehearsals) read side by
side. Python's standard library only.
"""
import argparse
import json
import re
import statistics
import subprocess
import sys

START = re.compile(r"^\s+Start\s+\d+: (\S+)")
DONE = re.compile(r"Test\s+#\d+: (\S+) \.*\s*(\*\*\*\w+(?: \w+)?|Passed|Not Run|\w+)\s+([\d.]+) sec")


def properties(build):
    """{test: {property: value}} from CTest's own listing of the build's tests."""
    listing = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], capture_output=True, text=True,
                             check=True)
    return {t["name"]: {p["name"]: p["value"] for p in t.get("properties", [])}
            for t in json.loads(listing.stdout)["tests"]}


def replay(path, slots):
    """The run in `path` replayed: ({test: (start, seconds, status)}, wall, seconds of empty slots)."""
    now, idle, running, tests = 0.0, 0.0, {}, {}
    with open(path, errors="replace") as log:
        for line in log:
            started = START.match(line)
            if started:
                running[started.group(1)] = now
                continue
            done = DONE.search(line)
            if not done:
                continue
            name, status, seconds = done.group(1), done.group(2), float(done.group(3))
            began = running.pop(name, now)
            end = began + seconds
            if end > now:
                idle += (end - now) * max(0, slots - len(running) - 1)
                now = end
            tests[name] = (began, seconds, status.strip("*"))
    return tests, now, idle


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+", help="the output of `ctest -j N` runs")
    parser.add_argument("--build", help="the build folder whose tests they are (for RUN_SERIAL); without it, none is")
    parser.add_argument("-j", "--slots", type=int, default=2, help="the -j the runs had (default 2)")
    parser.add_argument("--top", type=int, default=40, help="how many tests to rank (default 40)")
    args = parser.parse_args()
    props = properties(args.build) if args.build else {}
    serial = {name for name, p in props.items() if p.get("RUN_SERIAL")}

    runs = []
    print("%-28s %8s %8s %8s %8s %8s %6s" % ("log", "wall s", "empty s", "serial", "parallel", "estimate", "tests"))
    for path in args.logs:
        tests, wall, idle = replay(path, args.slots)
        runs.append(tests)
        in_serial = sum(s for n, (_, s, _) in tests.items() if n in serial)
        in_parallel = sum(s for n, (_, s, _) in tests.items() if n not in serial)
        print("%-28s %8.1f %8.1f %8.1f %8.1f %8.1f %6d" % (path[-28:], wall, idle, in_serial, in_parallel,
                                                          in_serial + in_parallel / args.slots, len(tests)))
        failed = sorted(n for n, (_, _, status) in tests.items() if status not in ("Passed", "Skipped"))
        if failed:
            print("    not passed: " + ", ".join(failed))
    print("(estimate: the serial sum plus the parallel sum over %d slots; 'empty s' counts slot-seconds with no test)"
          % args.slots)

    names = {n for tests in runs for n in tests}
    median = {n: statistics.median([t[n][1] for t in runs if n in t]) for n in names}
    print("\n%-55s %6s %7s %s" % ("test (by median seconds)", "serial", "wall s", "  ".join("log%d" % i for i in range(1, len(runs) + 1))))
    for name in sorted(names, key=lambda n: -median[n])[:args.top]:
        share = median[name] if name in serial else median[name] / args.slots
        cells = "  ".join(("%6.1f" % t[name][1]) if name in t else "     -" for t in runs)
        print("%-55s %6s %7.1f %s" % (name[:55], "yes" if name in serial else "", share, cells))
    serial_total = sum(median[n] for n in names if n in serial)
    parallel_total = sum(median[n] for n in names if n not in serial)
    print("\nmedians: serial %.1f s (%d tests), parallel %.1f s (%d tests): about %.1f s of wall time on %d slots"
          % (serial_total, len([n for n in names if n in serial]), parallel_total,
             len([n for n in names if n not in serial]), serial_total + parallel_total / args.slots, args.slots))


if __name__ == "__main__":
    sys.exit(main())
