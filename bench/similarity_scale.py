#!/usr/bin/env python3
"""How long `grader similarity` takes on a large class, and how much memory (issue 36: under a minute for 300
submissions of one lab on 2 vCPUs). Standard library only.

  python3 bench/similarity_scale.py --grader build/bin/grader --lab lab1 --students 300 --work /tmp/sim300

writes a class of N submissions into WORK/submissions (each one of the lab's reference, its bench/mid_tier
submission, its skeleton and the honest solutions of tests/similarity/<lab>/, perturbed: identifiers renamed,
comment lines added, indentation changed, a small function of its own added; every fifth a .zip), then runs
`/usr/bin/time -v grader similarity LAB WORK/submissions --out WORK/out` and prints the wall time, the peak
resident memory and the report's counts. Most pairs share a source, so the engine reports far more runs than a
real class would: an upper bound on the work.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import zipfile

KEYWORDS = set("""alignas alignof and asm auto bool break case catch char class const constexpr const_cast continue
decltype default delete do double dynamic_cast else enum explicit extern false float for friend goto if inline int long
mutable namespace new noexcept nullptr operator private protected public register reinterpret_cast return short signed
sizeof static static_assert static_cast struct switch template this throw true try typedef typename union unsigned using
virtual void volatile while include pragma unroll define ifdef ifndef endif std int64_t size_t uint64_t int32_t
__global__ __device__ __shared__ __forceinline__ __restrict__ __syncthreads __syncwarp __shfl_down_sync threadIdx
blockIdx blockDim gridDim x y z w float4 cudaGetDevice cudaDeviceGetAttribute atomicAdd cudaMemsetAsync""".split())


def lab_folder(root, lab):
    return next(n for n in sorted(os.listdir(os.path.join(root, "labs"))) if n == lab or n.startswith(lab + "-"))


def sources(root, lab):
    student_file = sorted(os.listdir(os.path.join(root, "skeletons", lab)))[0]
    found = [os.path.join(root, "reference", lab, student_file), os.path.join(root, "skeletons", lab, student_file)]
    mid = os.path.join(root, "bench", "mid_tier", lab, student_file)
    if os.path.exists(mid):
        found.append(mid)
    tests = os.path.join(root, "tests", "similarity", lab)
    if os.path.isdir(tests):
        found += [os.path.join(tests, n) for n in sorted(os.listdir(tests)) if n.startswith("honest_")]
    return student_file, [open(p, encoding="utf-8").read() for p in found]


def perturb(text, header_names, rng, number):
    # Rename a random half of the identifiers the file defines or uses (never the lab's API from its header).
    words = sorted(set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", text)) - KEYWORDS - header_names)
    renamed = {w: "%s_%d" % (w, number) for w in words if rng.random() < 0.5}
    text = re.sub(r"\b[A-Za-z_][A-Za-z0-9_]*\b", lambda m: renamed.get(m.group(0), m.group(0)), text)
    lines = []
    for line in text.split("\n"):
        if line.startswith("  ") and rng.random() < 0.3:
            line = " " + line  # indentation changed
        if rng.random() < 0.05 and not line.rstrip().endswith("\\"):
            lines.append("// note %d" % rng.randrange(10**6))
        lines.append(line)
    # A small function of the student's own, of a random shape: students' own code differs in structure, not only
    # in names (identical shapes would all match each other, as the engine ignores names).
    shapes = ["  t = t * %d + v;\n", "  if (v > %d) t -= v;\n", "  for (int i = 0; i < %d; ++i) t ^= i;\n",
              "  while (t > %d) t /= 2;\n", "  t = (t << 1) | (v & %d);\n", "  { int u[2] = {t, %d}; t = u[v & 1]; }\n"]
    body = "".join(rng.choice(shapes) % rng.randrange(2, 99) for _ in range(rng.randrange(3, 9)))
    lines.append("static int helper_%d(int v) {\n  int t = %d;\n%s  return t + v;\n}" % (number, number, body))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--lab", default="lab1")
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()
    lab = lab_folder(args.root, args.lab)
    student_file, texts = sources(args.root, lab)
    header = open(os.path.join(args.root, "labs", lab, [h for h in os.listdir(os.path.join(args.root, "labs", lab))
                                                        if h.endswith(".h")][0])).read()
    header_names = set(re.findall(r"\b[A-Za-z_][A-Za-z0-9_]*\b", header))
    rng = random.Random(args.seed)
    folder = os.path.join(args.work, "submissions")
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(folder)
    for number in range(args.students):
        text = perturb(texts[number % len(texts)], header_names, rng, number)
        student = "student%03d" % number
        if number % 5 == 4:
            with zipfile.ZipFile(os.path.join(folder, student + ".zip"), "w") as archive:
                archive.writestr(student_file, text)
        else:
            os.makedirs(os.path.join(folder, student))
            with open(os.path.join(folder, student, student_file), "w", encoding="utf-8") as out:
                out.write(text)
    command = ["/usr/bin/time", "-v", args.grader, "--root", args.root, "similarity", args.lab, folder, "--out",
               os.path.join(args.work, "out")]
    load = open("/proc/loadavg").read().split()[0]
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", result.stdout)
    user = re.search(r"User time \(seconds\): (\S+)", result.stdout)
    system = re.search(r"System time \(seconds\): (\S+)", result.stdout)
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", result.stdout)
    summary = [l for l in result.stdout.splitlines() if l.startswith(("compared", "wrote"))]
    print("\n".join(summary))
    # CPU time too: on a shared machine the wall time says more about the neighbours than about the grader.
    print("%s, %d submissions: wall %s, CPU %.1f s (user %s + sys %s), peak RSS %.1f MiB (/usr/bin/time -v, grader and "
          "engine; exit %d); load average before: %s" %
          (lab, args.students, wall and wall.group(1), float(user.group(1)) + float(system.group(1)), user.group(1),
           system.group(1), int(peak.group(1)) / 1024 if peak else -1, result.returncode, load))
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
