#!/usr/bin/env python3
"""grade_slurm_e2e.py: a student's own grading on the course's cluster, `grader LAB --slurm` (issue 37), against the
real one-node SLURM that slurm_up.sh starts (checks labelled slurm), and the no-GPU line of a report.

    python3 grade_slurm_e2e.py --grader build/grader/grader --root . --work DIR normal SLURM_DIR

Checks:
  normal SLURM_DIR     lab1 through --slurm: the same report (text, JSON, --output) and exit code as a local grading
                       of the same seed, for a passing and a failing submission; the progress lines; the student's
                       folder untouched; the overhead over a local grading, submission to first line, printed
  unshared SLURM_DIR   shared_filesystem = false: the files travel inside the script (srun), the report comes back
                       on its output; the same reports; a running job cancelled with SIGINT
  cancel SLURM_DIR     SIGINT (Ctrl-C) to the grader while its job runs: the job is cancelled in SLURM, exit 130, said so;
                       a job someone else cancels (scancel): exit 9, named
  timelimit_start SLURM_DIR  starts `timelimit`'s grading in the background and returns: SLURM ends that job a minute
                       or more later, and the test's slot runs other tests meanwhile instead of waiting
  timelimit SLURM_DIR  then (same --work): that job, which the scheduler ended at its time limit (a one-minute limit, a
                       node grader that never ends): exit 9, named; only the declared file was staged, even from a
                       folder holding odd names
  calibration SLURM_DIR  the login node (this machine under another host name, unshare --uts) and the node share
                       one cache, as through a home folder: the login node's calibration is there, and the job's
                       report is not calibrated; the node's own is there too, and the job's report has its figures
  badbyte SLURM_DIR    a submission folder whose name holds a byte that is not UTF-8 and a line break, beside a file
                       named so: graded on the node as here, the same report and exit code
  gpu SLURM_DIR        on the cluster with two fake GPUs (slurm_up.sh DIR 2): lab5 (CUDA) asks for a GPU
                       (#SBATCH --gpus-per-task=1), and two gradings at once each see their own in CUDA_VISIBLE_DEVICES
                       (a stand-in node grader reports it: nothing CUDA runs on a fake GPU); more GPUs than the node
                       has: sbatch refuses, exit 6 with sbatch's words and the script kept
  nodefail SLURM_DIR   on the same cluster: the node set DOWN (scontrol) while the job runs, with sbatch and with srun:
                       exit 9, "its node failed" named, the student's folder untouched; the node is put back
  no_gpu               lab5 graded here without a GPU: the report's next line after "not run" is the command to run
                       (course settings) or to ask the course staff (none), in text, JSON and Gradescope
  settings             a wrong course.toml is exit 2 with its file:line:column; --slurm without settings is exit 3;
                       `grader batch --slurm --dry-run` takes the same settings (what the TA types wins)

A check prints what it ran and, on failure, why, then exits 1; 77 when it cannot run here, with the reason.
Python's standard library only.
"""
import argparse
import contextlib
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import make_class  # noqa: E402

SKIP = 77


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


class Context:
    def __init__(self, args, fresh=True):
        """fresh: start from an empty --work (every check but the second half of one that ran in two)."""
        self.grader = os.path.abspath(args.grader)
        self.root = os.path.abspath(args.root)
        self.work = os.path.abspath(args.work)
        if fresh:
            shutil.rmtree(self.work, ignore_errors=True)
            os.makedirs(self.work)
        self.tmp = os.path.join(self.work, "tmp")
        os.makedirs(self.tmp, exist_ok=True)
        self.jobs = os.path.join(self.work, "jobs")
        self.settings = os.path.join(self.work, "course.toml")
        self.extra_env = {}
        self.prefix = []  # words the grader's command runs under (unshare ...)

    def write_settings(self, **keys):
        """course.toml with a [slurm] table: partition grader (slurm_up.sh's), this grader and root, unless overridden."""
        values = {"partition": "grader", "time": "10:00", "grader": self.grader, "root": self.root,
                  "shared_filesystem": True, "jobs_folder": self.jobs}
        values.update(keys)
        lines = ["# written by grade_slurm_e2e.py", "[slurm]"]
        for key, value in values.items():
            lines.append("%s = %s" % (key, json.dumps(value) if not isinstance(value, bool) else str(value).lower()))
        with open(self.settings, "w") as f:
            f.write("\n".join(lines) + "\n")

    def env(self):
        env = dict(os.environ, TMPDIR=self.tmp, NO_COLOR="1", GRADER_COURSE_SETTINGS=self.settings)
        env.update(self.extra_env)
        return env

    def command(self, lab, *args):
        return [os.fsencode(w) for w in self.prefix] + [os.fsencode(self.grader), b"--root", os.fsencode(self.root), lab.encode()] + \
               [a if isinstance(a, bytes) else str(a).encode() for a in args]

    def grade(self, lab, *args, expect=None, timeout=600):
        """Runs `grader LAB ARGS`; returns (exit code, stdout bytes, stderr text, seconds to the first byte of stdout)."""
        cmd = self.command(lab, *args)
        print("$ " + " ".join(os.fsdecode(c) for c in cmd), flush=True)
        start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.env())
        errors = []
        reader = threading.Thread(target=lambda: errors.append(proc.stderr.read()))
        reader.start()
        first = proc.stdout.read(1)
        first_at = time.monotonic() - start if first else None
        out = first + proc.stdout.read()
        code = proc.wait(timeout=timeout)
        reader.join()
        err = errors[0].decode(errors="replace")
        print(out.decode(errors="replace")[-3000:] + err[-3000:] + "(exit %d, %.1f s)" % (code, time.monotonic() - start),
              flush=True)
        if expect is not None:
            check(code == expect, "exit %d, expected %d" % (code, expect))
        return code, out, err, first_at


def folder_digest(folder):
    digest = hashlib.sha256()
    for base, dirs, files in sorted(os.walk(os.fsencode(folder))):
        for name in sorted(files):
            path = os.path.join(base, name)
            stat = os.lstat(path)
            digest.update(path + str((stat.st_mtime_ns, stat.st_size)).encode())
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()


def comparable(report_json):
    """A JSON report without what differs between two gradings of the same seed: how long each stage took."""
    report = json.loads(report_json)
    for key in ("wall_seconds", "stage_seconds"):
        report.pop(key, None)
    return report


def cluster(slurm_dir):
    skip = os.path.join(slurm_dir, "skip")
    if os.path.exists(skip):
        print("SKIPPED: " + open(skip).read().strip())
        return None
    conf = os.path.join(slurm_dir, "slurm.conf")
    if not os.path.exists(conf):
        raise CheckFailed("no %s: the slurm fixture (slurm_up.sh) did not run or failed" % conf)
    return {"SLURM_CONF": conf}


def student(ctx, sid, variant, folder=None):
    where = folder or os.path.join(ctx.work, "subs", sid)
    os.makedirs(where)
    with open(os.path.join(where, b"matvec.cpp" if isinstance(where, bytes) else "matvec.cpp"), "wb") as f:
        f.write(make_class.source(variant))
    return where


def names_its_node(err):
    """Whether the progress lines on stderr say which node the job ran on: "is running on <node>", or, for a short job
    whose first look after the queue found it already ending or ended, "is finishing on <node>" or "ran on <node>"
    (grade_slurm.cpp, JobProgress). Which one a job gets depends on when the grader looked: a --quick grading of lab1
    on a machine whose other core compiles can be COMPLETING at the first look."""
    return any(words in err for words in (" is running on ", " is finishing on ", " ran on "))


def job_id(stderr):
    """The job's number, from the progress lines ("job 12 is waiting in the queue", "job 12 is running on node1")."""
    for line in stderr.splitlines():
        words = line.split()
        if len(words) > 2 and words[0] == "job" and words[1].isdigit():
            return words[1]
    raise CheckFailed("no 'job N is ...' line on stderr")


def slow_grader(ctx):
    """Stands in for the grader on the nodes: lists what was staged for it, then grades nothing for ten minutes."""
    path = os.path.join(ctx.work, "slow-grader.sh")
    with open(path, "w") as f:
        f.write("#!/bin/bash\n"
                "while [ $# -gt 0 ]; do\n"
                "  if [ \"$1\" = --submission ]; then ls -A \"$2\" | sed 's/^/staged: /' >&2; fi\n"
                "  shift\n"
                "done\n"
                "exec sleep 600\n")
    os.chmod(path, 0o755)
    return path


# --- checks -----------------------------------------------------------------------------------------------------


def check_normal(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    ctx.write_settings()
    local_at, remote_at = [], []  # seconds from the command to the report's first line, for the figure below
    for variant, expected_code in (("fast", 0), ("wrong", 1)):
        folder = student(ctx, variant, variant)
        before = folder_digest(folder)
        for fmt in ("text", "json"):
            args = ("--submission", folder, "--quick", "--seed", "7", "--format", fmt)
            local = ctx.grade("lab1", *args, expect=expected_code)
            remote = ctx.grade("lab1", *args, "--slurm", expect=expected_code)
            local_at.append(local[3])
            remote_at.append(remote[3])
            if fmt == "json":
                check(comparable(remote[1]) == comparable(local[1]), "%s: the JSON reports differ" % variant)
            else:
                check(remote[1] == local[1], "%s: the text reports differ" % variant)
            err = remote[2]
            check("submitted job " in err and "Ctrl-C cancels it" in err, "no submission line on stderr")
            check(names_its_node(err), "no line names the node: 'is running on <node>' (or 'is finishing on', 'ran on')")
        check(folder_digest(folder) == before, "%s: the student's folder changed" % variant)
    # --output FILE: the report lands there, nothing on stdout.
    out_file = os.path.join(ctx.work, "report.json")
    code, out, _, _ = ctx.grade("lab1", "--submission", os.path.join(ctx.work, "subs", "fast"), "--quick", "--seed", "7",
                                "--format", "json", "--output", out_file, "--slurm", expect=0)
    check(out == b"" and json.load(open(out_file))["lab"] == "lab1", "--output: the report is not in the file")
    check(os.listdir(ctx.jobs) == [], "job folders left behind after reports came back: %r" % os.listdir(ctx.jobs))
    # The figure: from the command to the report's first line, of the pairs above but the first, whose local grading
    # may have built the lab's own code. Taken from the gradings the checks need, not from five more pairs of its own:
    # those asserted nothing more and were 15 s of this test, most of it waiting for SLURM to start a job (issue 35).
    local_at, remote_at = local_at[1:], remote_at[1:]
    median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
    print("FIGURES: lab1 --quick, command to the report's first line, %d runs each: local %s s, --slurm %s s; "
          "median local %.2f s, --slurm %.2f s, overhead %.2f s"
          % (len(local_at), " ".join("%.2f" % t for t in local_at), " ".join("%.2f" % t for t in remote_at),
             median(local_at), median(remote_at), median(remote_at) - median(local_at)))


def check_unshared(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    # The nodes see nothing of the login node: the files travel inside the script, run by srun, and the report
    # comes back on its standard output. (Here the node is this machine, so only the way they travel is tested.)
    ctx.write_settings(shared_filesystem=False)
    folder = student(ctx, "fast", "fast")
    with open(os.path.join(os.fsencode(folder), b"notes\xff.txt"), "wb") as f:
        f.write(b"not declared\n")
    for fmt, expected_code in (("text", 0), ("json", 0)):
        args = ("--submission", folder, "--quick", "--seed", "5", "--format", fmt)
        local = ctx.grade("lab1", *args, expect=expected_code)
        remote = ctx.grade("lab1", *args, "--slurm", expect=expected_code)
        check((comparable(remote[1]) == comparable(local[1])) if fmt == "json" else remote[1] == local[1],
              "%s: the reports differ" % fmt)
        check(names_its_node(remote[2]), "no line names the node: 'is running on <node>' (or 'is finishing on', 'ran on')")
    check(os.listdir(ctx.jobs) == [], "job folders left behind: %r" % os.listdir(ctx.jobs))
    # A job that never ends, cancelled while it runs: srun's job too is named and cancelled.
    ctx.write_settings(shared_filesystem=False, grader=slow_grader(ctx))
    return cancel_running_job(ctx, folder)


def check_cancel(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    ctx.write_settings(grader=slow_grader(ctx))
    folder = student(ctx, "fast", "fast")
    cancel_running_job(ctx, folder)
    # Cancelled by someone else (the staff, or the student from another terminal): named, exit 9, not 130.
    cmd = ctx.command("lab1", "--submission", folder, "--quick", "--slurm")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ctx.env(), text=True)
    seen = wait_until_running(proc)
    subprocess.run(["scancel", job_id(seen)], check=True, env=ctx.env())
    out, rest = proc.communicate(timeout=120)
    print(seen + rest + "(exit %d)" % proc.returncode)
    check(proc.returncode == 9, "exit %d after an outside scancel, expected 9" % proc.returncode)
    check("job %s did not finish: it was cancelled (scancel, by you from another terminal or by the course staff)"
          % job_id(seen) in rest, "the outside cancellation is not named")


def wait_until_running(proc):
    """stderr up to the line that says the job runs."""
    seen = ""
    deadline = time.monotonic() + 120
    while " is running on " not in seen:
        line = proc.stderr.readline()
        check(line and time.monotonic() < deadline, "the job never ran: %r" % seen)
        seen += line
    return seen


def cancel_running_job(ctx, folder):
    cmd = ctx.command("lab1", "--submission", folder, "--quick", "--slurm")
    print("$ " + " ".join(os.fsdecode(c) for c in cmd), flush=True)
    # In a process group of its own, which gets the SIGINT as a terminal's Ctrl-C would: the grader and whatever
    # it runs at that moment (scontrol, squeue).
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ctx.env(), text=True,
                            start_new_session=True)
    seen = wait_until_running(proc)
    os.killpg(proc.pid, signal.SIGINT)
    out, rest = proc.communicate(timeout=120)
    err = seen + rest
    print(out + err + "(exit %d)" % proc.returncode)
    check(proc.returncode == 130, "exit %d after Ctrl-C, expected 130" % proc.returncode)
    job = job_id(err)
    check("job %s cancelled (Ctrl-C): nothing was graded; your files are untouched" % job in err, "Ctrl-C not named")
    # A cancelled job may still show as completing (CG) while slurmd tears it down, which takes seconds on a loaded
    # machine (seen beside instructor.release's compile): it must leave the queue, not still run, within 30 s.
    deadline = time.monotonic() + 30
    while True:
        squeue = subprocess.run(["squeue", "--noheader", "--jobs", job], capture_output=True, text=True, env=ctx.env())
        leaving = squeue.stdout.split()[4:5] == ["CG"]
        if not leaving or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    check(squeue.stdout.strip() == "", "job %s still in squeue: %r" % (job, squeue.stdout))
    state = subprocess.run(["scontrol", "--oneliner", "show", "job", job], capture_output=True, text=True, env=ctx.env())
    check("JobState=CANCELLED" in state.stdout, "job %s is not CANCELLED: %r" % (job, state.stdout))
    check(os.listdir(ctx.jobs) == [], "a cancelled job's folder was left behind")


def timelimit_files(ctx):
    """Where timelimit_start leaves the background grading's output, exit code and process group, and the folder."""
    return {name: os.path.join(ctx.work, "timelimit." + name) for name in ("out", "err", "code", "pgid", "digest")}


def check_timelimit_start(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    ctx.write_settings(grader=slow_grader(ctx), time="1")  # SLURM counts limits in minutes
    folder = student(ctx, "odd", "fast")
    for name in (b"notes\xff.txt", b"two\nlines.cpp", b"matvec.cpp.orig"):
        with open(os.path.join(os.fsencode(folder), name), "wb") as f:
            f.write(b"not declared: never staged\n")
    files = timelimit_files(ctx)
    with open(files["digest"], "w") as f:
        f.write(folder_digest(folder))
    cmd = ctx.command("lab1", "--submission", folder, "--quick", "--slurm")
    print("$ " + " ".join(os.fsdecode(c) for c in cmd) + "   (in the background)", flush=True)
    # Its own session, its output in files and stdin from /dev/null, so CTest does not wait on pipes it holds; the
    # exit code is written once the grading ends (the file appears whole, by rename).
    wrapper = '"$@" > "$OUT" 2> "$ERR"; echo $? > "$CODE.part" && mv "$CODE.part" "$CODE"'
    env = dict(ctx.env(), OUT=files["out"], ERR=files["err"], CODE=files["code"])
    proc = subprocess.Popen([b"sh", b"-c", wrapper.encode(), b"sh"] + cmd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    with open(files["pgid"], "w") as f:
        f.write(str(proc.pid))


def check_timelimit(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    files = timelimit_files(ctx)
    check(os.path.exists(files["pgid"]), "no grading was started: batch.grade_slurm_timelimit_start did not run")
    deadline = time.monotonic() + 400
    while not os.path.exists(files["code"]) and time.monotonic() < deadline:
        time.sleep(1)
    if not os.path.exists(files["code"]):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(int(open(files["pgid"]).read()), signal.SIGINT)
        raise CheckFailed("the grading did not end within 400 s of this check's start")
    code = int(open(files["code"]).read())
    out = open(files["out"], "rb").read()
    err = open(files["err"], errors="replace").read()
    print(out.decode(errors="replace")[-3000:] + err[-3000:] + "(exit %d)" % code, flush=True)
    folder = os.path.join(ctx.work, "subs", "odd")
    before = open(files["digest"]).read()
    check(code == 9, "exit %d, expected 9 (the cluster ended the job)" % code)
    job = job_id(err)
    check("job %s did not finish: the cluster ended it at its time limit (1)" % job in err, "the time limit is not named")
    check("your files are untouched" in err, "the student is not told their files are untouched")
    check(out == b"", "a report was printed for a job that never reported")
    check(folder_digest(folder) == before, "the student's folder changed")
    kept = [os.path.join(ctx.jobs, d) for d in os.listdir(ctx.jobs)]
    check(len(kept) == 1, "the ended job's folder (its log) should be kept: %r" % kept)
    check(os.listdir(os.path.join(kept[0], "src")) == ["matvec.cpp"], "staged: %r" % os.listdir(os.path.join(kept[0], "src")))
    log = open(os.path.join(kept[0], "job.log"), errors="replace").read()
    check("staged: matvec.cpp\n" in log and log.count("staged: ") == 1, "the node saw other files: %r" % log)
    script = open(os.path.join(kept[0], "grade-lab1.sbatch")).read()
    check("#SBATCH --time=1\n" in script and "#SBATCH --partition=grader\n" in script, "the course's settings are not in the script")
    check("--gpus" not in script, "a CPU lab's job asks for a GPU")


def calibration_file(read_gbps):
    """A CPU calibration as `grader calibrate` keeps it (calibrate/calibration.cpp), its figures all `read_gbps`-based."""
    return {"threads": 1, "bandwidth_1t_gbps": read_gbps, "bandwidth_all_gbps": read_gbps, "read_bandwidth_1t_gbps": read_gbps,
            "read_bandwidth_all_gbps": read_gbps, "peak_fp64_gflops_1t": 10.0, "peak_fp64_gflops_all": 10.0, "rounds": 3,
            "stable": True, "busy": False, "others_share": 0.0}


def calibration_name(machine):
    """The machine's calibration file: host-<id>, the id hashing hostname, CPU model and threads as the report has them."""
    key = "%s\n%s\n%d" % (machine["hostname"], machine["cpu"], machine["threads"])
    return "host-" + hashlib.sha256(key.encode()).hexdigest()[:12] + ".json"


def check_calibration(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    if not shutil.which("unshare") or subprocess.run(["unshare", "--uts", "true"]).returncode != 0:
        print("SKIPPED: no unshare --uts here (util-linux, as root): this machine cannot play a login node of another name")
        return SKIP
    # A cache of the test's own for the calibrations, sharing the build's lab builds (nothing to compile again).
    cache = os.path.join(ctx.work, "cache")
    os.makedirs(os.path.join(cache, "calibration"))
    built_labs = os.path.join(os.path.dirname(os.path.dirname(ctx.grader)), "cache", "labs")
    if os.path.isdir(built_labs):
        os.symlink(built_labs, os.path.join(cache, "labs"))
    ctx.extra_env["GRADER_CACHE"] = cache
    ctx.write_settings()
    folder = student(ctx, "fast", "fast")
    args = ("--submission", folder, "--quick", "--seed", "3", "--format", "json")
    ctx.prefix = ["unshare", "--uts", "sh", "-c", 'hostname login-node && exec "$@"', "login"]
    login = json.loads(ctx.grade("lab1", *args, expect=0)[1])["machine"]
    check(login["hostname"] == "login-node" and not login["calibrated"], "the login node: %r" % login)
    with open(os.path.join(cache, "calibration", calibration_name(login)), "w") as f:
        json.dump(calibration_file(1.25), f)
    login = json.loads(ctx.grade("lab1", *args, expect=0)[1])["machine"]
    check(login.get("read_bandwidth_1t_gbps") == 1.25, "the login node does not read its own calibration: %r" % login)
    # From the login node, --slurm: the node finds the login node's figures in the cache and does not take them.
    node = json.loads(ctx.grade("lab1", *args, "--slurm", expect=0)[1])["machine"]
    check(node["hostname"] != "login-node", "the job ran under the login node's name: %r" % node)
    check(not node["calibrated"], "the job took a calibration made elsewhere: %r" % node)
    with open(os.path.join(cache, "calibration", calibration_name(node)), "w") as f:
        json.dump(calibration_file(7.75), f)
    node = json.loads(ctx.grade("lab1", *args, "--slurm", expect=0)[1])["machine"]
    check(node.get("read_bandwidth_1t_gbps") == 7.75, "the job did not read its node's own calibration: %r" % node)


def check_badbyte(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    ctx.write_settings()
    folder = os.path.join(os.fsencode(ctx.work), b"subs", b"caf\xe9 line\nbreak")
    student(ctx, "odd", "fast", folder)
    with open(os.path.join(folder, b"notes\xff.txt"), "wb") as f:
        f.write(b"not declared\n")
    before = folder_digest(folder)
    for fmt in ("text", "json"):
        args = ("--submission", folder, "--quick", "--seed", "11", "--format", fmt)
        local = ctx.grade("lab1", *args, expect=0)
        remote = ctx.grade("lab1", *args, "--slurm", expect=0)
        if fmt == "json":
            check(comparable(remote[1]) == comparable(local[1]), "the JSON reports differ")
            check("\ufffd" in json.loads(remote[1])["submission"], "the bad byte is not shown as U+FFFD")
        else:
            check(remote[1] == local[1], "the text reports differ")
    check(folder_digest(folder) == before, "the student's folder changed")


def gpu_probe(ctx):
    """Stands in for the grader on a node whose GPUs are fake: reports the GPU SLURM gave the job, and the job's
    script, as its report; waits (up to a minute) until `peers` probes have started, so their jobs overlap."""
    path = os.path.join(ctx.work, "gpu-probe.sh")
    started = os.path.join(ctx.work, "probes-started")
    os.makedirs(started, exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/bin/bash\n"
                "while [ $# -gt 0 ]; do [ \"$1\" = --output ] && out=$2; shift; done\n"
                "touch %s/$$\n"
                "for _ in $(seq 1 600); do [ $(ls %s | wc -l) -ge 2 ] && break; sleep 0.1; done\n"
                "{ echo \"CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES\"; cat grade-*.sbatch; } > \"$out\"\n"
                "exit 5\n" % (started, started))
    os.chmod(path, 0o755)
    return path


def check_gpu(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    # Two students at once, one GPU each: SLURM gives each job its own, and says which in CUDA_VISIBLE_DEVICES.
    ctx.write_settings(gpus_per_job=1, cpus_per_job=1, grader=gpu_probe(ctx))
    cmd = ctx.command("lab5", "--quick", "--slurm")
    print("$ " + " ".join(os.fsdecode(c) for c in cmd) + "  (twice at once)", flush=True)
    procs = [subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ctx.env(), text=True)
             for _ in range(2)]
    seen = []
    for proc in procs:
        out, err = proc.communicate(timeout=180)
        print(out + err + "(exit %d)" % proc.returncode)
        check(proc.returncode == 5, "exit %d: the node grader's exit code (5) should come back" % proc.returncode)
        check(names_its_node(err), "no line names the node: 'is running on <node>' (or 'is finishing on', 'ran on')")
        check(out.startswith("CUDA_VISIBLE_DEVICES="), "the job saw no GPU: %r" % out[:200])
        seen.append(out.splitlines()[0].split("=", 1)[1])
        check("#SBATCH --gpus-per-task=1\n" in out and "#SBATCH --cpus-per-task=1\n" in out, "no GPU or CPU request")
        check("#SBATCH --no-requeue\n" in out, "a failed node would requeue the job: no --no-requeue")
        check("${CUDA_VISIBLE_DEVICES:+, GPU(s) $CUDA_VISIBLE_DEVICES}" in out, "the log does not name the job's GPUs")
        check(" grade lab5 --submission " in out and " --hidden" not in out, "the node's command: %r" % out)
    check(sorted(seen) == ["0", "1"], "the two jobs were not each given a GPU of their own: %r" % seen)
    # More GPUs than the node has: sbatch refuses, and says why.
    ctx.write_settings(gpus_per_job=3, cpus_per_job=1)
    code, out, err, _ = ctx.grade("lab5", "--quick", "--slurm")
    check(code == 6, "exit %d: the node has 2 GPUs, so sbatch should refuse a job asking for 3 (6)" % code)
    check("sbatch refused the job" in err and "nothing was graded" in err, "sbatch's refusal is not passed on")
    kept = [os.path.join(ctx.jobs, d) for d in os.listdir(ctx.jobs)]
    check(len(kept) == 1, "the refused job's script should be kept: %r" % kept)
    script = open(os.path.join(kept[0], "grade-lab5.sbatch")).read()
    check("#SBATCH --gpus-per-task=3\n" in script, "the course's GPU count is not in the script")
    # --hidden is the caller's to ask for (staff), never added.
    ctx.grade("lab5", "--quick", "--slurm", "--hidden")
    script = open(os.path.join([os.path.join(ctx.jobs, d) for d in os.listdir(ctx.jobs) if os.path.join(ctx.jobs, d) != kept[0]][0],
                               "grade-lab5.sbatch")).read()
    check(" --quick --hidden" in script, "--hidden was not passed on for staff")


def node_state(ctx, node):
    return subprocess.run(["sinfo", "--noheader", "--nodes", node, "--format", "%T"], capture_output=True, text=True,
                          env=ctx.env()).stdout.strip()


def put_node_back(ctx, node):
    """RESUME when the node is still down (slurm_up.sh's ReturnToService=2 may already have), then wait until idle."""
    deadline = time.monotonic() + 30
    while node_state(ctx, node) != "idle":
        if "down" in node_state(ctx, node) or "drain" in node_state(ctx, node):
            subprocess.run(["scontrol", "update", "NodeName=" + node, "State=RESUME"], env=ctx.env())
        check(time.monotonic() < deadline, "node %s is %r, not idle, 30 s after it was put back"
              % (node, node_state(ctx, node)))
        time.sleep(0.25)


def check_nodefail(ctx, slurm_dir):
    ctx.extra_env = cluster(slurm_dir)
    if ctx.extra_env is None:
        return SKIP
    folder = student(ctx, "fast", "fast")
    before = folder_digest(folder)
    for shared in (True, False):
        ctx.write_settings(grader=slow_grader(ctx), shared_filesystem=shared)
        cmd = ctx.command("lab1", "--submission", folder, "--quick", "--slurm")
        print("$ " + " ".join(os.fsdecode(c) for c in cmd) + "  (shared_filesystem = %s)" % shared, flush=True)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ctx.env(), text=True)
        seen = wait_until_running(proc)
        node = seen.split(" is running on ")[1].split()[0]
        try:
            subprocess.run(["scontrol", "update", "NodeName=" + node, "State=DOWN", "Reason=grade_slurm_e2e node failure"],
                           check=True, env=ctx.env())
            out, rest = proc.communicate(timeout=120)
        finally:
            put_node_back(ctx, node)
        err = seen + rest
        print(out + err + "(exit %d)" % proc.returncode)
        check(proc.returncode == 9, "exit %d after the node failed, expected 9" % proc.returncode)
        check("job %s did not finish: its node failed (%s). Nothing was graded; your files are untouched."
              % (job_id(err), node) in err, "the node failure is not named")
        check(out == "", "a report was printed for a job whose node failed")
        check(folder_digest(folder) == before, "the student's folder changed")
    check(node_state(ctx, node) == "idle", "the node was not put back")


def check_no_gpu(ctx):
    smi = shutil.which("nvidia-smi")
    if smi and subprocess.run([smi, "-L"], capture_output=True).returncode == 0:
        print("SKIPPED: this machine has a GPU: lab5 runs here, and no 'not run' line is written")
        return SKIP
    ctx.write_settings()
    code, out, err, _ = ctx.grade("lab5", "--quick")
    if code == 3:
        print("SKIPPED: no nvcc here to build lab5 (exit 3)")
        return SKIP
    check(code == 5, "exit %d, expected 5 (built, not run)" % code)
    lines = out.decode().splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("not run: ")]
    check(at, "no 'not run' line")
    check(lines[at[0] + 1] == "to grade it on a GPU node of the course's cluster: grader lab5 --slurm",
          "the line after 'not run': %r" % lines[at[0] + 1])
    folder = os.path.join(ctx.work, "my lab5")
    shutil.copytree(os.path.join(ctx.root, "skeletons", "lab5-gemv-warps"), folder)
    code, out, _, _ = ctx.grade("lab5", "--quick", "--submission", folder, "--format", "json", expect=5)
    check(json.loads(out)["status_details"].endswith("grader lab5 --slurm --submission '%s'" % folder),
          "JSON: %r" % json.loads(out)["status_details"])
    code, out, _, _ = ctx.grade("lab5", "--quick", "--format", "html", expect=5)
    check(b"no CUDA GPU was found on this machine<br>to grade it on a GPU node of the course&#39;s cluster: grader lab5 --slurm"
          in out, "HTML: the command is not on a line of its own")
    os.remove(ctx.settings)
    code, out, _, _ = ctx.grade("lab5", "--quick", "--format", "gradescope", expect=5)
    check("\nthis course has no GPU cluster set up for the grader (no [slurm] in %s): ask the course staff where to run it"
          % ctx.settings in json.loads(out)["output"], "Gradescope: %r" % json.loads(out)["output"])
    code, out, _, _ = ctx.grade("lab5", "--quick", expect=5)
    lines = out.decode().splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith("not run: ")][0]
    check(lines[at + 1].endswith("ask the course staff where to run it"), "text without settings: %r" % lines[at + 1])


def check_settings(ctx):
    with open(ctx.settings, "w") as f:
        f.write("[slurm]\npartition = \"gpu\"\ngpus_per_job = -1\n")
    code, _, err, _ = ctx.grade("lab1", "--quick", "--slurm", expect=2)
    check("%s:3:16: gpus_per_job must be a whole number from 0 to 16, got -1" % ctx.settings in err, "position: %r" % err)
    with open(ctx.settings, "w") as f:
        f.write("[slurm]\npartiton = \"gpu\"\n")
    code, _, err, _ = ctx.grade("lab1", "--quick", "--slurm", expect=2)
    check("%s:2:1: unknown key 'partiton' in [slurm]" % ctx.settings in err, "unknown key: %r" % err)
    os.remove(ctx.settings)
    code, _, err, _ = ctx.grade("lab1", "--quick", "--slurm", expect=3)
    check("this course has no cluster set up for the grader" in err and "ask the course staff" in err, "no settings: %r" % err)
    ctx.write_settings()
    ctx.grade("lab1", "--slurm", "--bundle", os.path.join(ctx.work, "b"), expect=2)
    # The TA's batch --slurm reads the same settings: its script asks for the course's partition and account and
    # runs the course's grader; what the TA types still wins.
    ctx.write_settings(partition="gpu", account="cs101", qos="class", gpus_per_job=2, grader="/opt/course/grader")
    subs = os.path.join(ctx.work, "class")
    student(ctx, "s1", "fast", os.path.join(subs, "s1"))
    out = os.path.join(ctx.work, "out")
    for lab, extra, lines in (("lab1", [], ["#SBATCH --partition=gpu\n", "#SBATCH --account=cs101\n", "#SBATCH --qos=class\n",
                                            "\nexec /opt/course/grader --root "]),
                              ("lab1", ["--partition", "debug"], ["#SBATCH --partition=debug\n", "#SBATCH --account=cs101\n"]),
                              ("lab5", [], ["#SBATCH --gpus-per-task=2\n", " --gpus all"])):
        cmd = [ctx.grader, "--root", ctx.root, "batch", lab, subs, "--out", out, "--slurm", "--dry-run"] + extra
        print("$ " + " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True, env=ctx.env())
        print(proc.stdout + proc.stderr)
        check(proc.returncode == 0, "batch --slurm --dry-run: exit %d" % proc.returncode)
        for line in lines:
            check(line in proc.stdout, "batch %s %r: no %r in the script" % (lab, extra, line))
        check(lab == "lab5" or "--gpus" not in proc.stdout, "a CPU lab's batch asks for GPUs")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("check")
    parser.add_argument("arg", nargs="?")
    args = parser.parse_args()
    checks = {"normal": check_normal, "unshared": check_unshared, "cancel": check_cancel, "timelimit": check_timelimit,
              "timelimit_start": check_timelimit_start, "calibration": check_calibration, "badbyte": check_badbyte,
              "gpu": check_gpu, "nodefail": check_nodefail, "no_gpu": check_no_gpu, "settings": check_settings}
    if args.check not in checks:
        print("unknown check " + args.check)
        return 2
    ctx = Context(args, fresh=args.check != "timelimit")  # the second half reads what timelimit_start left
    try:
        result = checks[args.check](ctx, args.arg) if args.arg else checks[args.check](ctx)
    except CheckFailed as failure:
        print("FAILED: %s" % failure)
        return 1
    except subprocess.TimeoutExpired as timeout:
        print("FAILED: timed out: %s" % timeout)
        return 1
    if result == SKIP:
        return SKIP
    print("PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main())
