#!/usr/bin/env python3
"""misuse.py: command lines and outputs that once went wrong silently (issue 19), each with the exit code and the
words it must now give. One row per misuse; the test prints each row's outcome and the count.

    python3 misuse.py --grader build/bin/grader --root . --work DIR

Rows that need an unprivileged user (a read-only --out, an unreadable submission) are skipped as root, since root
may write and read anything; the skip is printed with its reason. Exit 0 when every row holds, else 1.
"""
import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "batch"))
sys.dont_write_bytecode = True
import make_class  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    work = args.work
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    subs = os.path.join(work, "subs")
    for sid, variant in [("alice", "fast"), ("bob", "wrong")]:
        make_class.write_student(subs, sid, variant, "folder")
    fast = os.path.join(subs, "alice")
    a_file = os.path.join(work, "a-file")
    open(a_file, "w").close()
    latin1 = os.path.join(work.encode(), b"jos\xe9")
    os.makedirs(latin1)
    with open(os.path.join(latin1, b"matvec.cpp"), "wb") as f:
        f.write(make_class.source("fast") + b'\nint caf\xe9 = ;\n')
    root = os.geteuid() == 0
    out = os.path.join(work, "out")

    def grader(*argv):
        return [args.grader, "--root", args.root] + list(argv)

    # (what, argv, exit code, words on stderr, skip reason or None)
    rows = [
        ("grade --seed -1", grader("lab1", "-q", "-s", fast, "--seed", "-1"), 2, "--seed expects a whole number", None),
        ("grade --seed 99999999999999999999999", grader("lab1", "-q", "-s", fast, "--seed", "99999999999999999999999"), 2, "--seed expects", None),
        ("grade --seed ''", grader("lab1", "-q", "-s", fast, "--seed", ""), 2, "--seed expects", None),
        ("grade -o into a missing folder", grader("lab1", "-q", "-s", fast, "-o", os.path.join(work, "none", "r.txt")), 2, "does not exist", None),
        ("grade -o onto a folder", grader("lab1", "-q", "-s", fast, "-o", work), 2, "is a folder", None),
        ("--root /missing list", grader("list")[:2] + ["/missing/course", "list"], 2, "has no labs/ folder", None),
        ("batch --seed -1", grader("batch", "lab1", subs, "-o", out, "-q", "--seed", "-1"), 2, "--seed expects", None),
        ("batch --max-archive-mb -1", grader("batch", "lab1", subs, "-o", out, "-q", "--max-archive-mb", "-1"), 2, "--max-archive-mb expects", None),
        ("batch --max-archive-mb 2^44", grader("batch", "lab1", subs, "-o", out, "-q", "--max-archive-mb", "17592186044416"), 2, "--max-archive-mb expects", None),
        ("batch --max-archive-files 0", grader("batch", "lab1", subs, "-o", out, "-q", "--max-archive-files", "0"), 2, "--max-archive-files expects", None),
        ("batch --out that is a file", grader("batch", "lab1", subs, "-o", a_file, "-q"), 2, "--out: ", None),
        ("batch --out read-only", grader("batch", "lab1", subs, "-o", "/proc/1", "-q"), 2, "--out: ", "root may write anywhere" if root else None),
        ("grade an unreadable submission", grader("lab1", "-q", "-s", "/root"), 2, "cannot be read", "root may read anything" if root else None),
    ]
    failures, ran = [], 0
    for what, argv, code, words, skip in rows:
        if skip:
            print("skip  %-40s (%s)" % (what, skip))
            continue
        ran += 1
        proc = subprocess.run(argv, capture_output=True, timeout=300)
        err = proc.stderr.decode("utf-8", "replace")
        lines = [l for l in err.splitlines() if l.strip()]
        ok = proc.returncode == code and words in err and len(lines) == 1 and "what()" not in err
        print("%s  %-40s -> exit %d: %s" % ("ok  " if ok else "FAIL", what, proc.returncode, err.strip()[:150]))
        if not ok:
            failures.append(what)

    # Single gradings of a Latin-1 compile error in every format: a report, never exit 4 with nothing written.
    for fmt in ("json", "gradescope", "text"):
        ran += 1
        target = os.path.join(work, "latin1." + fmt)
        proc = subprocess.run([args.grader.encode(), b"--root", args.root.encode(), b"lab1", b"-q", b"-s", latin1, b"-f",
                               fmt.encode(), b"-o", target.encode()], capture_output=True, timeout=300)
        ok = proc.returncode == 1 and os.path.exists(target)
        if ok and fmt != "text":
            with open(target, encoding="utf-8") as f:
                report = json.load(f)
            ok = report["score"] == 0
        elif ok:
            ok = "\ufffd" in open(target, encoding="utf-8").read()
        print("%s  %-40s -> exit %d" % ("ok  " if ok else "FAIL", "grade --format %s, Latin-1 compile error" % fmt, proc.returncode))
        if not ok:
            failures.append(fmt)

    # A root grader with TMPDIR inside a 0700 folder: its workers (other users) could not reach their work folder,
    # and every grading failed with "Permission denied". It now says so and works in /tmp.
    if root:
        ran += 1
        private = os.path.join(work, "private")
        os.makedirs(os.path.join(private, "tmp"))
        os.chmod(private, 0o700)
        proc = subprocess.run(grader("lab1", "-q", "-s", fast), capture_output=True, timeout=300,
                              env=dict(os.environ, TMPDIR=os.path.join(private, "tmp")))
        err = proc.stderr.decode("utf-8", "replace")
        ok = proc.returncode in (0, 1) and "other users cannot enter" in err
        print("%s  %-40s -> exit %d: %s" % ("ok  " if ok else "FAIL", "root grader, TMPDIR inside a 0700 folder",
                                            proc.returncode, err.strip()[:150]))
        if not ok:
            failures.append("tmpdir")
    else:
        print("skip  %-40s (only a root grader drops to nobody)" % "root grader, TMPDIR inside a 0700 folder")

    # Two batches into one --out: while another holds the folder's lock (here, this test, as a running batch would),
    # a batch is refused before it grades anyone.
    ran += 1
    lock_out = os.path.join(work, "locked")
    os.makedirs(lock_out)
    with open(os.path.join(lock_out, ".lock"), "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        second = subprocess.run(grader("batch", "lab1", subs, "-o", lock_out, "-q"), capture_output=True, timeout=120)
    err = second.stderr.decode("utf-8", "replace")
    ok = second.returncode == 2 and "another grader batch is writing into" in err and not os.path.exists(
        os.path.join(lock_out, "alice.json"))
    print("%s  %-40s -> exit %d: %s" % ("ok  " if ok else "FAIL", "a second batch into the same --out", second.returncode, err.strip()[:150]))
    if not ok:
        failures.append("lock")

    print("%d of %d misuses handled as expected" % (ran - len(failures), ran))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
