#!/usr/bin/env python3
"""gpus_e2e.py: `grader batch --gpus` end to end (tests/batch/CMakeLists.txt), one check per CTest test.

    python3 gpus_e2e.py --grader build/bin/grader --root . --work DIR fake
    python3 gpus_e2e.py --grader build/bin/grader --root . --work DIR real

Checks:
  fake   the SLURM job script of a GPU lab (--dry-run: each task grades on --gpus all), `grader calibrate --gpus`'s
         refusals; then on a machine without a GPU, with a fake nvidia-smi (the test hook GRADER_TEST_NVIDIA_SMI) listing two GPUs:
         refusals (a CPU lab, a bad count, more GPUs than listed, no nvidia-smi); a small lab5 class --quick over two
         GPUs, each report naming its GPU; a GPU that stops answering mid-batch is taken out of rotation, its
         student's grading discarded and done again on the other, nobody stored twice; every GPU gone: the rest left
         ungraded, and a second run grades just them. lab5 builds here (nvcc) and is not run (no GPU), which is all the
         scheduling needs. Skipped (77) where there is a real GPU or no nvcc.
  real   label gpu: on a machine with NVIDIA GPUs, the same small class with --gpus all, timed: every report names one
         of nvidia-smi's GPUs, the reference earns its points on each. Skipped (77) without a GPU.

Python's standard library only.
"""
import argparse
import json
import os
import re
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from batch_e2e import CheckFailed, Context, check, load  # noqa: E402

SKIP = 77
LAB = "lab5"
UUIDS = ["GPU-00000000-0000-4000-8000-000000000000", "GPU-11111111-1111-4111-8111-111111111111"]

# A fake nvidia-smi: lists the GPUs in STATE/list; `-i UUID` answers about one (as nvidia-smi does, failing for one it
# does not know); GPUs without ECC. STATE/drop holds "<uuid> <n>": that GPU disappears from the list after it has been asked about n times.
FAKE_SMI = r'''#!/usr/bin/env python3
import os, sys
state = sys.argv[0] + ".state"
lines = open(os.path.join(state, "list")).read().splitlines()
drop = os.path.join(state, "drop")
if any("ecc.errors" in a for a in sys.argv):
    print("[N/A]")  # no ECC on these GPUs
    sys.exit(0)
if len(sys.argv) > 2 and sys.argv[1] == "-i":
    uuid = sys.argv[2]
    if os.path.exists(drop):
        for rule in open(drop).read().splitlines():
            gone, after = rule.split()
            if gone != uuid:
                continue
            count = os.path.join(state, "asked-" + uuid)
            n = int(open(count).read()) if os.path.exists(count) else 0
            open(count, "w").write(str(n + 1))
            if n + 1 > int(after):
                lines = [l for l in lines if uuid not in l]
                open(os.path.join(state, "list"), "w").write("".join(l + "\n" for l in lines))
    found = [l for l in lines if uuid in l]
    if not found:
        print("No devices were found")
        sys.exit(6)
    print(found[0])
    sys.exit(0)
print("\n".join(lines))
'''


def make_fake_smi(ctx, drop=None):
    path = os.path.join(ctx.work, "fake-nvidia-smi")
    state = path + ".state"
    shutil.rmtree(state, ignore_errors=True)
    os.makedirs(state)
    with open(path, "w") as f:
        f.write(FAKE_SMI)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    with open(os.path.join(state, "list"), "w") as f:
        f.write("".join("%d, %s, Fake H200\n" % (i, uuid) for i, uuid in enumerate(UUIDS)))
    if drop:
        with open(os.path.join(state, "drop"), "w") as f:
            f.write("".join("%s %d\n" % rule for rule in drop))
    return path


def make_lab5_class(root, folder, students):
    """students: {id: "reference" | "skeleton" | "broken"}; each a folder holding gemv.cu."""
    shutil.rmtree(folder, ignore_errors=True)
    for sid, kind in students.items():
        os.makedirs(os.path.join(folder, sid))
        target = os.path.join(folder, sid, "gemv.cu")
        if kind == "broken":
            with open(target, "w") as f:
                f.write("#include \"gemv.h\"\nthis does not compile;\n")
        else:
            shutil.copy(os.path.join(root, kind + "s" if kind == "skeleton" else kind, "lab5-gemv-warps", "gemv.cu"), target)
    return folder


def reports(out):
    found = {}
    for name in os.listdir(out):
        if name.endswith(".json") and not name.startswith("."):
            r = load(os.path.join(out, name))
            found[r["batch"]["student"]] = r
    return found


def check_refusals(ctx, subs, fake):
    out = os.path.join(ctx.work, "refused")
    p = ctx.batch(subs, "--out", out, "--quick", "--gpus", "2", lab="lab1", env={"GRADER_TEST_NVIDIA_SMI": fake}, expect=2)
    check("is a CPU lab" in p.stderr, "--gpus on lab1 was not refused as a CPU lab")
    p = ctx.batch(subs, "--out", out, "--quick", "--gpus", "two", lab=LAB, env={"GRADER_TEST_NVIDIA_SMI": fake}, expect=2)
    check("--gpus expects a count" in p.stderr, "--gpus two was not refused")
    p = ctx.batch(subs, "--out", out, "--quick", "--gpus", "3", lab=LAB, env={"GRADER_TEST_NVIDIA_SMI": fake}, expect=3)
    check("this machine has 2 GPU(s)" in p.stderr, "--gpus 3 of 2 was not refused with the count")
    p = ctx.batch(subs, "--out", out, "--quick", "--gpus", "all", lab=LAB,
                  env={"GRADER_TEST_NVIDIA_SMI": fake, "CUDA_VISIBLE_DEVICES": "7"}, expect=3)
    check("CUDA_VISIBLE_DEVICES names '7'" in p.stderr, "a CUDA_VISIBLE_DEVICES naming no listed GPU was not refused")
    p = ctx.batch(subs, "--out", out, "--quick", "--gpus", "1", lab=LAB, env={"PATH": "/usr/bin:/bin"}, expect=3)
    check("no nvidia-smi on PATH" in p.stderr, "--gpus without nvidia-smi was not refused")
    check(not any(n.endswith(".json") and not n.startswith(".") for n in os.listdir(out)) if os.path.isdir(out) else True,
          "a refused --gpus batch graded someone")


def check_slurm_script(ctx, subs):
    """--slurm --dry-run: each task of a GPU lab grades on every GPU it is given; a CPU lab's tasks do not."""
    out = os.path.join(ctx.work, "slurm-out")
    p = ctx.batch(subs, "--out", out, "--slurm", "--dry-run", "--gpus-per-task", "2", "--quick", lab=LAB, expect=0)
    check("#SBATCH --gpus-per-task=2" in p.stdout, "the script does not ask for 2 GPUs per task")
    exec_line = [l for l in p.stdout.splitlines() if l.startswith("exec ")]
    check(len(exec_line) == 1 and " --gpus all " in exec_line[0], "the task command does not grade on --gpus all: %r" % exec_line)
    chunk = lambda text: int(re.search(r"(\d+) per array task", text).group(1))  # noqa: E731
    plain = ctx.batch(subs, "--out", out, "--slurm", "--dry-run", "--quick", lab=LAB, expect=0)
    check(chunk(p.stdout) == 2 * chunk(plain.stdout), "a task with 2 GPUs grades %d students, one without %d"
          % (chunk(p.stdout), chunk(plain.stdout)))
    limit = lambda text: re.search(r"#SBATCH --time=(\S+)", text).group(1)  # noqa: E731
    check(limit(p.stdout) == limit(plain.stdout), "twice the students on twice the GPUs should take as long: --time %s vs %s"
          % (limit(p.stdout), limit(plain.stdout)))
    p = ctx.batch(subs, "--out", out, "--slurm", "--dry-run", "--gpus", "3", lab=LAB, expect=0)
    check("#SBATCH --gpus-per-task=3" in p.stdout and " --gpus all " in p.stdout, "--slurm --gpus 3 did not ask 3 GPUs per task")
    p = ctx.batch(subs, "--out", out, "--slurm", "--dry-run", "--gpus", "all", lab=LAB, expect=2)
    check("--gpus-per-task N" in p.stderr, "--slurm --gpus all without --gpus-per-task was not refused")
    p = ctx.batch(subs, "--out", out, "--slurm", "--dry-run", "--gpus-per-task", "1", "--quick", lab="lab1", expect=0)
    check(" --gpus all" not in p.stdout, "a CPU lab's tasks were given --gpus all")
    check(not os.path.exists(out), "a dry run wrote its output folder")


def check_calibrate_refusals(ctx):
    """grader calibrate --gpus refuses a bad request before it measures anything."""
    for request, env, code, words in [("two", {}, 2, "--gpus expects a count"),
                                      ("1", {"PATH": "/usr/bin:/bin"}, 3, "no nvidia-smi on PATH")]:
        cmd = [ctx.grader, "--root", ctx.root, "calibrate", "--gpus", request]
        print("$ " + " ".join(cmd), flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True, env=ctx.env(env), timeout=60)
        print(p.stdout + p.stderr + "(exit %d)" % p.returncode)
        check(p.returncode == code and words in p.stderr, "calibrate --gpus %s: exit %d, expected %d saying %r"
              % (request, p.returncode, code, words))
        check("calibrating" not in p.stderr, "calibrate --gpus %s measured before refusing" % request)


def check_fake(ctx):
    class_ = {"s1-ref": "reference", "s2-skel": "skeleton", "s3-broken": "broken", "s4-ref": "reference", "s5-ref": "reference"}
    subs = make_lab5_class(ctx.root, os.path.join(ctx.work, "class"), class_)
    check_slurm_script(ctx, subs)
    check_calibrate_refusals(ctx)
    if shutil.which("nvidia-smi"):
        print("SKIP: this machine has a GPU (nvidia-smi); the fake inventory would send workers to GPUs that do not exist "
              "here; batch.gpus_real tests this machine's own GPUs")
        return SKIP
    if not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc") or os.environ.get("CUDA_HOME")):
        print("SKIP: no nvcc: lab5 cannot be built here")
        return SKIP
    fake = make_fake_smi(ctx)
    check_refusals(ctx, subs, fake)

    # Two GPUs, taken in turn; GPU 1 stops answering after its first grading.
    fake = make_fake_smi(ctx, drop=[(UUIDS[1], 0)])
    out = os.path.join(ctx.work, "out")
    p = ctx.batch(subs, "--out", out, "--quick", "--gpus", "all", "--jobs", "3", "--seed", "7", lab=LAB,
                  env={"GRADER_TEST_NVIDIA_SMI": fake})
    check(p.returncode in (0, 1, 5), "exit code %d" % p.returncode)
    check("one student per GPU on 2 GPU(s)" in p.stderr, "the start line does not say the GPUs")
    check("GPU 1 (%s) is taken out of rotation" % UUIDS[1] in p.stderr, "no progress line retiring GPU 1")
    check("nvidia-smi no longer lists it" in p.stderr or "no longer answers" in p.stderr, "the retirement does not say why")
    got = reports(out)
    check(sorted(got) == sorted(class_), "stored students %r, expected %r" % (sorted(got), sorted(class_)))
    on_gpu = {}
    for sid, r in got.items():
        m = r["machine"]
        if class_[sid] == "broken":
            check("gpu_uuid" not in m, "%s did not build and still names a GPU" % sid)
            check(r["status"] == "build_error", "%s: status %s" % (sid, r["status"]))
            continue
        check(m.get("gpu_uuid") in UUIDS and m["gpu_uuid"] == UUIDS[m["gpu_index"]],
              "%s names GPU %r (%r)" % (sid, m.get("gpu_index"), m.get("gpu_uuid")))
        text = open(os.path.join(out, sid + ".txt")).read()
        check("graded on GPU %d (%s)" % (m["gpu_index"], m["gpu_uuid"]) in text, "%s.txt does not name its GPU" % sid)
        html = open(os.path.join(out, sid + ".html")).read()
        check(m["gpu_uuid"] in html, "%s.html does not name its GPU" % sid)
        bundle = load(os.path.join(out, sid + ".bundle", "bundle.json"))
        check(bundle["machine"].get("gpu_uuid") == m["gpu_uuid"], "%s's bundle does not name its GPU" % sid)
        on_gpu.setdefault(m["gpu_index"], []).append(sid)
    # GPU 1's one grading was discarded; GPU 0 graded everyone who built.
    check(not on_gpu.get(1), "GPU 1 kept %r after it failed" % on_gpu.get(1))
    check(len(on_gpu.get(0, [])) == 4, "GPU 0 graded %r" % on_gpu.get(0))
    retired = os.listdir(os.path.join(out, "gpu-retired"))
    check(len(retired) == 1, "gpu-retired/ holds %r" % retired)
    record = load(os.path.join(out, "gpu-retired", retired[0]))
    check(record["gpu_uuid"] == UUIDS[1] and record["student"] in class_, "the retirement record %r" % record)
    check(got[record["student"]]["machine"]["gpu_index"] == 0, "the discarded student was not graded again on GPU 0")
    summary = open(os.path.join(out, "summary.md")).read()
    for needle in ["**GPUs:** one student per GPU", "GPU 0 (%s): 4 student(s)." % UUIDS[0],
                   "**GPU taken out of rotation:** GPU 1 (%s)" % UUIDS[1], "5 of 5 students graded"]:
        check(needle in summary, "summary.md lacks %r" % needle)
    check(not [n for n in os.listdir(out) if ".tmp-" in n], "a discarded grading left files: %r" % os.listdir(out))

    # Every GPU stops answering after its first grading: the student who met both failures and the rest are left
    # ungraded, and a later run grades just them.
    fake = make_fake_smi(ctx, drop=[(UUIDS[0], 1), (UUIDS[1], 1)])
    out = os.path.join(ctx.work, "out-all-retired")
    p = ctx.batch(subs, "--out", out, "--quick", "--gpus", "2", "--jobs", "2", lab=LAB, env={"GRADER_TEST_NVIDIA_SMI": fake})
    check(p.returncode == 4, "exit code %d with students left ungraded, expected 4" % p.returncode)
    check("left ungraded with no GPU to grade them on" in p.stderr, "no line says students were left ungraded")
    check(": NOT graded: " in p.stderr, "no student is named as not graded")
    first = reports(out)
    check(2 <= len(first) < 5, "stored %r after every GPU was retired" % sorted(first))
    # The gradings that found no GPU left nothing behind: no work folders, no half-written bundles.
    mine = "grader-%d" % os.geteuid()  # the grader's scratch root, emptied when it ends (core/scratch.h)
    leftovers = [n for n in os.listdir(ctx.tmp) if n != mine]
    leftovers += os.listdir(os.path.join(ctx.tmp, mine)) if os.path.isdir(os.path.join(ctx.tmp, mine)) else []
    check(not leftovers, "the batch left files in TMPDIR: %r" % leftovers[:5])
    check(not [n for n in os.listdir(out) if ".tmp-" in n], "the batch left temporaries in --out: %r" % os.listdir(out))
    summary = open(os.path.join(out, "summary.md")).read()
    check("Not graded yet" in summary and summary.count("**GPU taken out of rotation:**") == 2, "summary.md does not tell the story")
    stamps = {sid: r["batch"]["graded_at"] + str(r["seed"]) for sid, r in first.items()}
    fake = make_fake_smi(ctx)
    p = ctx.batch(subs, "--out", out, "--quick", "--gpus", "2", lab=LAB, env={"GRADER_TEST_NVIDIA_SMI": fake})
    check("%d already graded; grading %d" % (len(first), 5 - len(first)) in p.stderr, "the second run did not resume")
    second = reports(out)
    check(sorted(second) == sorted(class_), "after resuming: %r" % sorted(second))
    for sid, stamp in stamps.items():
        check(second[sid]["batch"]["graded_at"] + str(second[sid]["seed"]) == stamp, "%s was graded twice" % sid)
    return 0


def check_real(ctx):
    if not shutil.which("nvidia-smi"):
        print("SKIP: no nvidia-smi: this machine has no NVIDIA GPU")
        return SKIP
    listed = subprocess.run(["nvidia-smi", "--query-gpu=index,uuid,name", "--format=csv,noheader"], capture_output=True, text=True)
    uuids = [line.split(",")[1].strip() for line in listed.stdout.splitlines() if line.strip()]
    if listed.returncode != 0 or not uuids:
        print("SKIP: nvidia-smi lists no GPU: %s" % (listed.stdout + listed.stderr).strip())
        return SKIP
    class_ = {"s1-ref": "reference", "s2-skel": "skeleton", "s3-broken": "broken", "s4-ref": "reference"}
    subs = make_lab5_class(ctx.root, os.path.join(ctx.work, "class"), class_)
    out = os.path.join(ctx.work, "out")
    ctx.batch(subs, "--out", out, "--gpus", "all", lab=LAB, timeout=1800)
    got = reports(out)
    check(sorted(got) == sorted(class_), "stored %r" % sorted(got))
    for sid, r in got.items():
        if class_[sid] == "broken":
            continue
        check(r["machine"].get("gpu_uuid") in uuids, "%s names GPU %r, not one of %r" % (sid, r["machine"].get("gpu_uuid"), uuids))
        if class_[sid] == "reference":
            check(r["score"] == r["max_score"], "%s (the reference) scored %s of %s" % (sid, r["score"], r["max_score"]))
    check(not os.path.exists(os.path.join(out, "gpu-retired")), "a healthy GPU was taken out of rotation")
    used = {r["machine"].get("gpu_uuid") for r in got.values() if r["machine"].get("gpu_uuid")}
    check(len(used) == min(len(uuids), 3), "the 3 students who built used GPUs %r of %r: the GPUs take turns" % (used, uuids))
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("check", choices=["fake", "real"])
    args = parser.parse_args()
    ctx = Context(args)
    try:
        return check_fake(ctx) if args.check == "fake" else check_real(ctx)
    except CheckFailed as failure:
        print("FAILED: %s" % failure)
        return 1


if __name__ == "__main__":
    sys.exit(main())
