#!/usr/bin/env python3
"""instructor.py: end-to-end checks of what an instructor does, one check per CTest test (CMakeLists.txt here).

    python3 instructor.py --grader build/bin/grader --root . new-lab-cpu
    python3 instructor.py --grader build/bin/grader --root . release

new-lab-cpu, new-lab-cuda   `grader new-lab` scaffolds a lab that passes `grader selftest`, and refuses to overwrite
new-lab-steps               a new lab that declares steps: selftest builds its substitution and catches it
datasets-deterministic      `grader datasets generate` into a copy reproduces every public dataset byte for byte
visibility                  students' runs grade visible cases only and count the hidden ones; Gradescope output
                            carries each test's visibility and gives nothing of a hidden case away
release                     `grader release` of this repository: nothing leaks (checked here, independently of the
                            grader's own scan), and the release configures, builds and grades lab1
release-options             --labs, and the refusals of a bad --out or an unknown lab
release-constructed         a course built for the purpose (hidden datasets, benchmarks, whole items, comments):
                            none of it reaches the release; a quoted solution line or a symbolic link stops it

Every check runs the grader in temporary directories and leaves the repository as it found it. A check prints
what it ran and, on failure, why, then exits 1; a check that cannot run here exits 77 and says why (CTest
reports it as skipped). Python's standard library only.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib

# The grader's exit codes (grader/src/cli/exit_codes.h).
ALL_PASSED, GRADED_FAILURES, USAGE, ENVIRONMENT, INTERNAL, NOT_RUN = 0, 1, 2, 3, 4, 5
SKIPPED = 77
WITHHELD = ("hidden", "after_due_date")


class CheckFailed(Exception):
    pass


class Skipped(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


# --- running things ----------------------------------------------------------------------------------


class Run:
    def __init__(self, argv, completed, seconds):
        self.argv, self.code, self.stdout, self.stderr, self.seconds = (
            argv, completed.returncode, completed.stdout, completed.stderr, seconds)

    def describe(self):
        return "$ %s\n(exit %s after %.1f s)\n--- stdout ---\n%s\n--- stderr ---\n%s" % (
            " ".join(self.argv), self.code, self.seconds, self.stdout[-3000:], self.stderr[-3000:])

    def json(self):
        try:
            return json.loads(self.stdout)
        except ValueError as error:
            raise CheckFailed("the output is not JSON (%s):\n%s" % (error, self.stdout[:2000]))


def run(argv, cwd=None, timeout=900, env=None):
    start = time.monotonic()
    completed = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                               env=env)
    result = Run([str(a) for a in argv], completed, time.monotonic() - start)
    print(result.describe())
    return result


class Grader:
    def __init__(self, binary):
        self.binary = binary

    def __call__(self, root, *args, timeout=900):
        env = dict(os.environ)
        env.pop("GRADER_ROOT", None)
        env["NO_COLOR"] = "1"
        result = run([self.binary, "--root", root] + list(args), timeout=timeout, env=env)
        check(result.code >= 0, "the grader was killed by signal %d" % -result.code)
        check(result.code != INTERNAL, "the grader reported an internal error (exit 4)")
        return result


def nvcc_available():
    cuda_home = os.environ.get("CUDA_HOME")
    candidates = [os.path.join(cuda_home, "bin", "nvcc")] if cuda_home else []
    candidates += [shutil.which("nvcc") or "", "/usr/local/cuda/bin/nvcc"]
    return any(c and os.access(c, os.X_OK) for c in candidates)


def gpu_available():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


# --- the course repository ----------------------------------------------------------------------------


def load_toml(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def labs_of(root):
    """(directory name, lab.toml as data) of every lab, in name order."""
    labs_dir = os.path.join(root, "labs")
    found = []
    for name in sorted(os.listdir(labs_dir)) if os.path.isdir(labs_dir) else []:
        path = os.path.join(labs_dir, name, "lab.toml")
        if re.fullmatch(r"lab\d+-[a-z0-9-]+", name) and os.path.isfile(path):
            found.append((name, load_toml(path)))
    return found


def visibility(entry):
    return entry.get("visibility", "visible")


def visible_outline(spec):
    """{item: [visible case names]} and [visible benchmarks]: what a student's lab.toml must still hold."""
    cases = {}
    for item in spec.get("correctness", []):
        names = [c["name"] for c in item["cases"] if visibility(c) not in WITHHELD]
        if names:
            cases[item["name"]] = names
    return cases, [p["name"] for p in spec.get("performance", []) if visibility(p) not in WITHHELD]


def all_files(root):
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(directory, name)
            yield os.path.relpath(path, root), path


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def read_text(path):
    with open(path, "rb") as f:
        data = f.read()
    return None if b"\0" in data else data.decode("utf-8", errors="replace")


def copy_course(src, dest, with_labs=True):
    """The course repository without its build trees and history (and, with_labs=False, without any lab)."""
    def ignore(directory, names):
        ignored = {n for n in names if n.startswith(".") and n != ".gitignore"}
        ignored |= {n for n in names if os.path.isfile(os.path.join(directory, n, "CMakeCache.txt"))}
        if os.path.abspath(directory) == os.path.abspath(src):
            ignored |= {n for n in names if n.startswith("build")}
            if not with_labs:
                ignored |= {"labs", "skeletons", "reference", "datasets"}
        return ignored
    shutil.copytree(src, dest, ignore=ignore, symlinks=True)
    for top in ("labs", "skeletons", "reference", "datasets"):
        os.makedirs(os.path.join(dest, top), exist_ok=True)


def grader_only(src, dest):
    """A course with nothing but the grader's sources (lab kit, templates): enough for new-lab and for grading."""
    shutil.copytree(os.path.join(src, "grader"), os.path.join(dest, "grader"))
    for top in ("labs", "skeletons", "reference", "datasets", "docs"):
        os.makedirs(os.path.join(dest, top), exist_ok=True)


def tree_snapshot(root):
    return {rel: sha256(path) for rel, path in all_files(root)}


def selftest_ok(grader, root, lab, attempts=2):
    """selftest LAB --format json, expected ok. Timing on a shared machine can be disturbed, so a failure whose
    every problem is about a timed item is tried once more; any other problem fails at once."""
    for attempt in range(attempts):
        result = grader(root, "selftest", lab, "--format", "json")
        verdict = result.json()
        labs = verdict.get("labs", [])
        check(len(labs) == 1, "selftest reported %r" % verdict)
        lab_verdict = labs[0]
        if result.code == ALL_PASSED and lab_verdict["ok"]:
            return lab_verdict
        timing_only = lab_verdict["problems"] and all(
            re.search(r"SUSPECT|speedup|roofline|reference earns|below", p) for p in lab_verdict["problems"])
        if not timing_only or attempt + 1 == attempts:
            raise CheckFailed("selftest %s found problems (exit %d): %r" % (lab, result.code, lab_verdict["problems"]))
        print("selftest's problems were all about timing: once more")


# --- new-lab ------------------------------------------------------------------------------------------

CPU_FILES = ["labs/{n}/lab.toml", "labs/{n}/README.md", "labs/{n}/{f}.h", "labs/{n}/harness.cpp",
             "labs/{n}/baseline.cpp", "skeletons/{n}/{f}.cpp", "reference/{n}/{f}.cpp", "datasets/{n}/manifest.toml"]
CUDA_FILES = ["labs/{n}/lab.toml", "labs/{n}/README.md", "labs/{n}/{f}.h", "labs/{n}/harness.cu",
              "labs/{n}/baseline.cu", "skeletons/{n}/{f}.cu", "reference/{n}/{f}.cu", "datasets/{n}/manifest.toml"]
SECTIONS = ["[lab]", "[build]", "[policy]", "[limits]", "[timing]", "[tolerance]", "[[correctness]]", "[[performance]]"]


def check_scaffold_files(root, name, file_stem, files):
    for pattern in files:
        path = os.path.join(root, pattern.format(n=name, f=file_stem))
        check(os.path.isfile(path), "new-lab did not write %s" % path)
    toml_path = os.path.join(root, "labs", name, "lab.toml")
    lines = open(toml_path).read().splitlines()
    for section in SECTIONS:
        at = [i for i, line in enumerate(lines) if line.strip() == section]
        check(at, "lab.toml has no %s section" % section)
        above = [l for l in lines[max(0, at[0] - 8):at[0]] if l.strip()]
        check(above and above[-1].lstrip().startswith("#"), "%s in lab.toml is not introduced by a comment" % section)
    spec = load_toml(toml_path)
    check(any(visibility(c) == "hidden" for item in spec["correctness"] for c in item["cases"]),
          "the scaffold shows no hidden case")
    check(any("dataset" in c for item in spec["correctness"] for c in item["cases"]), "the scaffold has no dataset case")
    return spec


def check_refusals(grader, root):
    """Each bad request exits 2 with its reason and writes nothing."""
    os.makedirs(os.path.join(root, "reference", "lab14-left-over"))
    with open(os.path.join(root, "reference", "lab14-left-over", "left_over.cpp"), "w") as f:
        f.write("// an old solution nobody removed\n")
    before = tree_snapshot(root)
    for args, message in [
        (["lab9", "other-name"], r"already is lab9"),
        (["lab11", "vector-ops"], r"already has the slug 'vector-ops'"),
        (["lab1x", "fine"], r"'id' must be \"lab\" followed by digits"),
        (["lab12", "Not_A_Slug"], r"'slug' must be lowercase letters"),
        (["lab13", "../escape"], r"not a lab slug"),
        (["lab14", "left-over"], r"reference/lab14-left-over/left_over\.cpp exists already"),
    ]:
        result = grader(root, "new-lab", *args)
        check(result.code == USAGE, "new-lab %s: exit %d, expected %d" % (" ".join(args), result.code, USAGE))
        check(re.search(message, result.stderr), "new-lab %s: the message does not match %r" % (" ".join(args), message))
        check(tree_snapshot(root) == before, "new-lab %s changed the tree although it refused" % " ".join(args))


def check_new_lab_cpu(grader, args):
    with tempfile.TemporaryDirectory(prefix="instructor-new-lab-") as root:
        grader_only(args.root, root)
        title = 'Vector "ops": axpy and dot'
        result = grader(root, "new-lab", "lab9", "vector-ops", "--title", title)
        check(result.code == ALL_PASSED, "new-lab exited %d" % result.code)
        spec = check_scaffold_files(root, "lab9-vector-ops", "vector_ops", CPU_FILES)
        check(spec["lab"]["title"] == title, "the title is %r" % spec["lab"]["title"])
        check(spec["lab"].get("gpu", False) is False, "a C++ lab with gpu = true")
        manifest = load_toml(os.path.join(root, "datasets", "lab9-vector-ops", "manifest.toml"))
        check(len(manifest["dataset"]) == 1 and manifest["dataset"][0].get("expected"),
              "the public case was not generated: %r" % manifest)
        check(grader(root, "datasets", "verify", "lab9").code == ALL_PASSED, "datasets verify lab9 failed")
        listed = grader(root, "list")
        check(re.search(r"lab9\s+vector-ops", listed.stdout), "grader list does not show lab9")

        # Mutants: a known mistake the cases catch passes; one they let through (the reference itself, declared
        # to fail) is a problem naming it. Then, with only the caught one left, the lab must be ok below.
        check_mutants(grader, root, spec)

        # A stray file in the skeleton would ship to students unread: selftest names it.
        stray = os.path.join(root, "skeletons", "lab9-vector-ops", "solution_notes.txt")
        open(stray, "w").write("not a student file\n")
        verdict = selftest_ok(grader, root, "lab9")
        check(any("skeletons/lab9-vector-ops/solution_notes.txt is not a student file" in w for w in verdict["warnings"]),
              "selftest does not warn about a file the lab does not declare: %r" % verdict["warnings"])
        os.remove(stray)
        check(not any("is not a student file" in w for w in verdict["warnings"] if "solution_notes" not in w),
              "selftest warns about declared files: %r" % verdict["warnings"])
        correctness = sum(item["points"] for item in spec["correctness"])
        check(verdict["reference_score"] == verdict["max_score"], "the reference earned %r" % verdict["reference_score"])
        check_timed_figures(spec, verdict)
        check([m["name"] for m in verdict["mutants"]] == ["dot_drops_tail"] and verdict["mutants"][0]["caught"],
              "selftest's mutants: %r" % verdict["mutants"])
        check(verdict["skeleton_performance_points"] == 0, "the skeleton earned performance points")
        check(verdict["skeleton_score"] == correctness, "the skeleton earned %r, expected its correctness points %r"
              % (verdict["skeleton_score"], correctness))
        check_refusals(grader, root)


def add_mutant(root, name, source, must_fail):
    folder = os.path.join(root, "labs", "lab9-vector-ops", "mutants", name)
    os.makedirs(folder)
    open(os.path.join(folder, "vector_ops.cpp"), "w").write(source)
    open(os.path.join(folder, "mutant.toml"), "w").write(
        'mistake = "%s"\nmust_fail = ["%s"]\n' % (name.replace("_", " "), must_fail))
    return folder


def check_mutants(grader, root, spec):
    reference = read_text(os.path.join(root, "reference", "lab9-vector-ops", "vector_ops.cpp"))
    tail = "  for (; i < n; ++i) total += x[i] * y[i];\n"
    check(tail in reference, "the scaffold's dot has no tail loop to drop")
    add_mutant(root, "dot_drops_tail", reference.replace(tail, ""), "dot")
    wrongly_declared = add_mutant(root, "correct_after_all", reference, "axpy")
    result = grader(root, "selftest", "lab9", "--format", "json")
    lab = result.json()["labs"][0]
    check(result.code == GRADED_FAILURES and not lab["ok"], "selftest passed a lab whose mutant is not caught: %r" % lab)
    mutants = {m["name"]: m for m in lab["mutants"]}
    check(set(mutants) == {"dot_drops_tail", "correct_after_all"}, "selftest graded mutants %r" % sorted(mutants))
    check(mutants["dot_drops_tail"]["caught"] and re.match(r"dot: wrong answer \(0\.0/", mutants["dot_drops_tail"]["failed"][0]),
          "the dropped tail was not caught: %r" % mutants["dot_drops_tail"])
    check(not mutants["correct_after_all"]["caught"], "a correct 'mutant' counted as caught")
    check(any("mutant correct_after_all" in p and "axpy" in p for p in lab["problems"]),
          "no problem names the mutant that got through: %r" % lab["problems"])
    shutil.rmtree(wrongly_declared)


def check_timed_figures(spec, verdict):
    """selftest's JSON carries the reference's figure on every timed item and the tiers it was held to."""
    timed = {t["item"]: t for t in verdict["timed"]}
    for item in spec["performance"]:
        figure = timed.get(item["name"])
        check(figure is not None, "selftest shows no figure for %r: %r" % (item["name"], verdict["timed"]))
        check(figure["measured"] and figure["value"] > 0, "%r was not measured: %r" % (item["name"], figure))
        check([t["points"] for t in figure["tiers"]] == [t["points"] for t in item["tiers"]],
              "%r: tiers %r, lab.toml has %r" % (item["name"], figure["tiers"], item["tiers"]))


def check_new_lab_cuda(grader, args):
    if not nvcc_available():
        raise Skipped("no nvcc: the CUDA scaffold cannot even be compiled here")
    with tempfile.TemporaryDirectory(prefix="instructor-new-lab-cuda-") as root:
        grader_only(args.root, root)
        result = grader(root, "new-lab", "lab10", "vector-gpu", "--cuda")
        check(result.code == ALL_PASSED, "new-lab --cuda exited %d" % result.code)
        spec = check_scaffold_files(root, "lab10-vector-gpu", "vector_gpu", CUDA_FILES)
        check(spec["lab"]["gpu"] is True and spec["build"]["language"] == "cuda", "not a CUDA lab: %r" % spec["build"])
        harness = open(os.path.join(root, "labs", "lab10-vector-gpu", "harness.cu")).read()
        check("#include <labkit/cuda.h>" in harness and "CudaProblem" in harness,
              "the CUDA harness is not written on <labkit/cuda.h>")
        if not gpu_available():
            check("not generated (no CUDA GPU here)" in result.stdout, "new-lab does not say why the datasets wait")
            # The proof available without a GPU: everything compiles, and nothing pretends to have run.
            selftest = grader(root, "selftest", "lab10")
            check(selftest.code == NOT_RUN, "selftest exited %d, expected %d (built, not run)" % (selftest.code, NOT_RUN))
            for submission in ("skeletons", "reference"):
                graded = grader(root, "grade", "lab10", "--submission", os.path.join(root, submission, "lab10-vector-gpu"),
                                "--quick", "--format", "json")
                report = graded.json()
                check(graded.code == NOT_RUN and report["status"] == "not_run",
                      "the %s: exit %d, status %r (%s); expected built but not run" % (
                          submission, graded.code, report["status"], report.get("status_details")))
            return
        check(grader(root, "datasets", "verify", "lab10").code == ALL_PASSED, "datasets verify lab10 failed")
        verdict = selftest_ok(grader, root, "lab10")
        check(verdict["skeleton_performance_points"] == 0, "the skeleton earned performance points")


# --- datasets -----------------------------------------------------------------------------------------


def read_npy(path):
    """The values of a little-endian float32/float64/int npy file, flattened: enough to compare expected outputs."""
    import struct
    with open(path, "rb") as f:
        data = f.read()
    check(data[:6] == b"\x93NUMPY", "%s is not an .npy file" % path)
    header_len = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else struct.unpack("<I", data[8:12])[0]
    start = (10 if data[6] == 1 else 12) + header_len
    header = data[start - header_len:start].decode("latin-1")
    descr = re.search(r"'descr':\s*'([^']+)'", header).group(1)
    code = {"<f8": "d", "<f4": "f", "<i8": "q", "<i4": "i"}.get(descr)
    check(code is not None, "%s: dtype %s not handled by this test" % (path, descr))
    count = (len(data) - start) // struct.calcsize(code)
    return struct.unpack("<%d%s" % (count, code), data[start:start + count * struct.calcsize(code)])


def within_tolerance(original, regenerated, rtol, atol):
    """Each pair of regenerated expected outputs within the lab's tolerance: |got - ref| <= atol + rtol*|ref|."""
    a, b = read_npy(original), read_npy(regenerated)
    return len(a) == len(b) and all(abs(x - y) <= atol + rtol * abs(x) for x, y in zip(a, b))


def check_datasets_deterministic(grader, args):
    """CPU labs: the judge that writes expected outputs is built for the baseline x86-64 ISA without FMA
    contraction, so every byte must match whichever CPU regenerates them. GPU labs: inputs byte for byte, expected
    outputs within the lab's tolerance (GPUs of different kinds may sum in a different order)."""
    generated, skipped, within = [], [], []
    has_gpu = gpu_available()
    for name, spec in labs_of(args.root):
        source = os.path.join(args.root, "datasets", name)
        if not os.path.isfile(os.path.join(source, "manifest.toml")):
            continue
        if spec["lab"].get("gpu", False) and not has_gpu:
            skipped.append(name)
            continue
        with tempfile.TemporaryDirectory(prefix="instructor-datasets-") as root:
            grader_only(args.root, root)
            shutil.copytree(os.path.join(args.root, "labs", name), os.path.join(root, "labs", name))
            shutil.copytree(source, os.path.join(root, "datasets", name))
            copy = os.path.join(root, "datasets", name)
            result = grader(root, "datasets", "generate", spec["lab"]["id"])
            check(result.code == ALL_PASSED, "datasets generate %s exited %d" % (name, result.code))
            original = {rel: sha256(path) for rel, path in all_files(source)}
            regenerated = {rel: sha256(path) for rel, path in all_files(copy)}
            check(set(original) == set(regenerated), "%s: generate made %r, the repository holds %r" % (
                name, sorted(regenerated), sorted(original)))
            changed = [rel for rel in original if original[rel] != regenerated[rel]]
            if spec["lab"].get("gpu", False):
                manifest = load_toml(os.path.join(source, "manifest.toml"))
                expected = {f for d in manifest["dataset"] for f in d.get("expected", {}).values()}
                tolerance = spec.get("tolerance", {})
                rtol, atol = tolerance.get("rtol", 1e-6), tolerance.get("atol", 1e-6)
                inputs_changed = [rel for rel in changed if os.path.basename(rel) not in expected and rel.endswith(".npy")]
                check(not inputs_changed, "%s: regenerated inputs differ from the repository's: %r" % (name, inputs_changed))
                far = [rel for rel in changed if os.path.basename(rel) in expected and
                       not within_tolerance(os.path.join(source, rel), os.path.join(copy, rel), rtol, atol)]
                check(not far, "%s: regenerated expected outputs beyond the tolerance: %r" % (name, far))
                if changed:
                    within.append(name)
                generated.append(name)
                continue  # the manifest's checksums are this GPU's: verify is for bit-identical data
            check(not changed, "%s: regenerated files differ from the repository's: %r" % (name, changed))
            check(grader(root, "datasets", "verify", spec["lab"]["id"]).code == ALL_PASSED, "verify %s failed" % name)
            # And verify notices a changed byte, naming the file.
            npy = sorted(rel for rel in regenerated if rel.endswith(".npy"))
            if npy:
                with open(os.path.join(copy, npy[-1]), "r+b") as f:
                    f.seek(-1, os.SEEK_END)
                    last = f.read(1)
                    f.seek(-1, os.SEEK_END)
                    f.write(bytes([last[0] ^ 0x01]))
                tampered = grader(root, "datasets", "verify", spec["lab"]["id"])
                check(tampered.code == GRADED_FAILURES, "verify accepted a changed %s (exit %d)" % (npy[-1], tampered.code))
                check(npy[-1] in tampered.stdout, "verify does not name the changed file %s" % npy[-1])
            generated.append(name)
    print("regenerated identically: %s; GPU expected outputs equal within tolerance only (not bit for bit): %s; "
          "skipped (GPU lab, no GPU here): %s" % ([g for g in generated if g not in within] or "none", within or "none",
                                                  skipped or "none"))
    if not generated:
        raise Skipped("no lab here has public datasets that can be generated on this machine")


# --- visibility ---------------------------------------------------------------------------------------


def insert_after(text, anchor, addition):
    at = text.find(anchor)
    check(at >= 0, "the scaffold's lab.toml no longer holds %r; update instructor.py" % anchor)
    at += len(anchor)
    return text[:at] + addition + text[at:]


def check_visibility(grader, args):
    # lab1 of this repository: students grade the visible cases and are told how many hidden ones exist.
    spec = load_toml(os.path.join(args.root, "labs", "lab1-matvec", "lab.toml"))
    hidden = {(item["name"], c["name"]) for item in spec["correctness"] for c in item["cases"] if visibility(c) in WITHHELD}
    hidden_items = [p["name"] for p in spec.get("performance", []) if visibility(p) in WITHHELD]
    check(hidden, "lab1 has no hidden case to test visibility with")
    student = grader(args.root, "grade", "lab1", "--quick", "--format", "json").json()
    check(student["hidden_not_run"] == len(hidden) + len(hidden_items),
          "hidden_not_run is %r, lab1 has %d hidden cases and items" % (student["hidden_not_run"], len(hidden) + len(hidden_items)))
    graded = {(t["name"], c["name"]) for t in student["tests"] for c in t.get("cases", [])}
    check(not graded & hidden, "a student's run graded hidden cases: %r" % sorted(graded & hidden))
    text = grader(args.root, "grade", "lab1", "--quick")
    check("%d hidden case(s)" % (len(hidden) + len(hidden_items)) in text.stdout, "the text report does not count the hidden cases")
    staff = grader(args.root, "grade", "lab1", "--quick", "--hidden", "--format", "json").json()
    check(staff["hidden_not_run"] == 0, "a staff run left %r hidden cases out" % staff["hidden_not_run"])
    staff_cases = {(t["name"], c["name"]): c["visibility"] for t in staff["tests"] for c in t.get("cases", [])}
    for key in hidden:
        check(staff_cases.get(key) in WITHHELD, "a staff run shows %r as %r" % (key, staff_cases.get(key)))

    # A scaffolded lab with every kind: a hidden case, an after_due_date case and an after_due_date benchmark. Named
    # as new-lab-cpu's, new-lab-steps' and release-constructed's (lab9-vector-ops), whose harness and flags it keeps:
    # one lab build in the cache serves all four (only lab.toml is edited here, which a lab build's key does not hold).
    with tempfile.TemporaryDirectory(prefix="instructor-visibility-") as root:
        grader_only(args.root, root)
        check(grader(root, "new-lab", "lab9", "vector-ops").code == ALL_PASSED, "new-lab failed")
        toml_path = os.path.join(root, "labs", "lab9-vector-ops", "lab.toml")
        text = open(toml_path).read()
        text = text.replace('{ name = "odd n = 100003", params = { n = 100003 }, visibility = "hidden" }',
                            '{ name = "odd n = 100003", params = { n = 100003 }, visibility = "after_due_date" }')
        # After the scaffold's performance item and its hints: the blocks below start new tables.
        hints_end = text.index("]\n", text.index("hints = [", text.index("tiers = [ { at = 1.2, points = 0 }, { at = 2.0, points = 20 } ]"))) + 2
        text = insert_after(text, text[:hints_end][-60:],
                            'visibility = "after_due_date"\n')
        open(toml_path, "w").write(text)
        spec = load_toml(toml_path)
        withheld = sum(visibility(c) in WITHHELD for item in spec["correctness"] for c in item["cases"])
        withheld += sum(visibility(p) in WITHHELD for p in spec["performance"])
        check(withheld == 3, "expected 3 withheld cases and items in the edited scaffold, found %d" % withheld)

        student = grader(root, "grade", "lab9", "--quick", "--format", "json").json()
        check(student["hidden_not_run"] == withheld, "hidden_not_run %r, expected %d" % (student["hidden_not_run"], withheld))
        check([t["name"] for t in student["tests"] if t["kind"] == "performance"] == [],
              "a student's run shows the after_due_date benchmark")

        staff = grader(root, "grade", "lab9", "--quick", "--hidden", "--format", "gradescope").json()
        expected = {item["name"]: "visible" for item in spec["correctness"]}
        # Gradescope calls "shown once grades are out" after_published (its after_due_date shows at the deadline).
        gradescope_word = {"after_due_date": "after_published"}
        expected.update({p["name"]: gradescope_word.get(visibility(p), visibility(p)) for p in spec["performance"]})
        got = {t["name"]: t.get("visibility") for t in staff["tests"]}
        check(got == expected, "Gradescope visibilities %r, expected %r" % (got, expected))

        # A submission that fails only the hidden case: the staff's Gradescope results say so without naming it.
        submission = os.path.join(root, "fails-hidden")
        os.makedirs(submission)
        skeleton = open(os.path.join(root, "skeletons", "lab9-vector-ops", "vector_ops.cpp")).read()
        broken = skeleton.replace("for (std::int64_t i = 0; i < n; ++i) z[i] = a * x[i] + y[i];\n",
                                  "for (std::int64_t i = 0; i < n; ++i) z[i] = a * x[i] + y[i];\n"
                                  "  if (n > 90000) z[n - 1] = 0;  // wrong only past every visible size\n", 1)
        check(broken != skeleton, "the scaffold's skeleton changed; update instructor.py")
        open(os.path.join(submission, "vector_ops.cpp"), "w").write(broken)
        student = grader(root, "grade", "lab9", "--submission", submission, "--quick", "--format", "json")
        check(student.code == ALL_PASSED, "a student's run saw the hidden failure (exit %d)" % student.code)
        results = grader(root, "grade", "lab9", "--submission", submission, "--quick", "--hidden", "--format", "gradescope").json()
        axpy = [t for t in results["tests"] if t["name"] == "axpy"][0]
        check(axpy["status"] == "failed" and axpy["score"] == 0, "the hidden failure cost nothing: %r" % axpy)
        hidden_case = [c for item in spec["correctness"] for c in item["cases"] if visibility(c) == "hidden"][0]
        revealing = [hidden_case["name"], str(hidden_case["params"]["n"]), str(hidden_case["params"]["n"] - 1)]
        leaked = [word for word in revealing if word in json.dumps(results)]
        check(not leaked, "the Gradescope results a student sees give the hidden case away (%r): %r" % (leaked, axpy))


# --- release ------------------------------------------------------------------------------------------


def evidence_from(root, released_specs, withheld_names=(), withheld_seeds=()):
    """What must not appear in a release of `root`: reference files and the lines only they have, and the names
    of hidden cases and items (those a visible case also uses are fair)."""
    shipped = []
    for top in ("labs", "skeletons", "grader"):
        for rel, path in all_files(os.path.join(root, top)):
            if top == "grader" and rel.startswith("templates" + os.sep):
                continue
            text = read_text(path)
            if text is not None:
                shipped.append(text)
    shipped = "\n".join(shipped)
    digests, unique = {}, {}
    for rel, path in all_files(os.path.join(root, "reference")):
        if os.path.getsize(path):
            digests[sha256(path)] = rel
        text = read_text(path)
        for line in (text or "").splitlines():
            line = line.strip()
            if len(line) > 20 and not line.startswith("#include") and line not in shipped:
                unique[line] = "reference/" + rel
    hidden, visible = set(withheld_names), set()
    for spec in released_specs:
        for item in spec.get("correctness", []):
            withheld = [c for c in item["cases"] if visibility(c) in WITHHELD]
            hidden |= {c["name"] for c in withheld}
            if len(withheld) == len(item["cases"]):
                hidden.add(item["name"])
            else:
                visible.add(item["name"])
            visible |= {c["name"] for c in item["cases"] if visibility(c) not in WITHHELD}
        for item in spec.get("performance", []):
            (hidden if visibility(item) in WITHHELD else visible).add(item["name"])
    return digests, unique, hidden - visible, set(withheld_seeds)


def scan_for_leaks(release, evidence):
    digests, unique, hidden, seeds = evidence
    leaks = []
    for rel, path in all_files(release):
        check(not os.path.islink(path), "%s is a symbolic link" % rel)
        if rel.split(os.sep)[0] == "reference":
            leaks.append("%s: a file of reference/" % rel)
        if os.path.getsize(path) and sha256(path) in digests:
            leaks.append("%s: a copy of %s" % (rel, digests[sha256(path)]))
        text = read_text(path)
        if text is None:
            continue
        for line in unique:
            if line in text:
                leaks.append("%s: quotes %s: %r" % (rel, unique[line], line))
        for name in hidden:
            if name in text or name in rel:
                leaks.append("%s: names hidden %r" % (rel, name))
        for seed in seeds:
            if re.search(r"(?<!\d)%s(?!\d)" % re.escape(seed), text):
                leaks.append("%s: holds withheld seed %s" % (rel, seed))
    return leaks


def check_release_structure(source_root, release, released):
    check(not os.path.exists(os.path.join(release, "reference")), "the release has reference/")
    for rel, path in all_files(release):
        parts = rel.split(os.sep)
        check(not any(p.startswith(".") and p != ".gitignore" for p in parts), "the release holds hidden %s" % rel)
        check(not rel.endswith((".o", ".a", ".so", ".pyc")) and parts[-1] != "CMakeCache.txt",
              "the release holds the build artefact %s" % rel)
        check(not (parts[0] == "grader" and len(parts) > 1 and parts[1] == "templates"), "the release holds %s" % rel)
    for top in ("labs", "skeletons"):
        names = sorted(n for n in os.listdir(os.path.join(release, top)) if os.path.isdir(os.path.join(release, top, n)))
        check(names == sorted(released), "%s/ of the release holds %r, expected %r" % (top, names, sorted(released)))
    for name in released:
        original = load_toml(os.path.join(source_root, "labs", name, "lab.toml"))
        shipped_text = open(os.path.join(release, "labs", name, "lab.toml")).read()
        shipped = tomllib.loads(shipped_text)
        for item in shipped.get("correctness", []):
            for c in item["cases"]:
                check(visibility(c) not in WITHHELD, "%s still has the hidden case %r" % (name, c["name"]))
        for item in shipped.get("performance", []):
            check(visibility(item) not in WITHHELD, "%s still has the hidden item %r" % (name, item["name"]))
        check(visible_outline(shipped) == visible_outline(original), "%s lost or changed a visible case" % name)
        hidden = sum(visibility(c) in WITHHELD for item in original.get("correctness", []) for c in item["cases"])
        hidden += sum(visibility(p) in WITHHELD for p in original.get("performance", []))
        check(shipped["lab"].get("withheld", 0) == hidden,
              "%s records withheld = %r, the course's file has %d hidden cases and items" %
              (name, shipped["lab"].get("withheld"), hidden))


def release_of(grader, root, out, *extra):
    result = grader(root, "release", "--out", out, *extra)
    check(result.code == ALL_PASSED, "release exited %d:\n%s" % (result.code, result.stderr[-3000:]))
    return result


def releasable_labs(grader, root):
    """The labs a release can hold today: a lab whose public datasets are not generated yet (a GPU lab written on a
    machine without a GPU) is refused by `grader release`, which release-constructed checks."""
    labs, waiting = [], []
    for name, spec in labs_of(root):
        has_datasets = os.path.isfile(os.path.join(root, "datasets", name, "manifest.toml"))
        if has_datasets and grader(root, "datasets", "verify", spec["lab"]["id"]).code != ALL_PASSED:
            waiting.append(name)
        else:
            labs.append((name, spec))
    print("releasable: %s; datasets not generated yet: %s" % ([n for n, _ in labs], waiting or "none"))
    return labs


def check_release(grader, args):
    labs = releasable_labs(grader, args.root)
    check("lab1-matvec" in [name for name, _ in labs], "lab1 cannot be released")
    with tempfile.TemporaryDirectory(prefix="instructor-release-") as temp:
        release = os.path.join(temp, "student-repo")
        before = tree_snapshot(os.path.join(args.root, "labs"))
        release_of(grader, args.root, release, "--labs", ",".join(spec["lab"]["id"] for _, spec in labs))
        check(tree_snapshot(os.path.join(args.root, "labs")) == before, "the release changed the course's labs/")
        check_release_structure(args.root, release, [name for name, _ in labs])
        leaks = scan_for_leaks(release, evidence_from(args.root, [spec for _, spec in labs]))
        check(not leaks, "the release gives away:\n  " + "\n  ".join(leaks[:40]))
        check(grader(release, "list").code == ALL_PASSED, "the release's labs do not load")
        check(grader(release, "datasets", "verify").code == ALL_PASSED, "the release's datasets do not verify")

        # The student's side: configure and build the release on its own, then grade lab1's skeleton with it.
        build = os.path.join(temp, "build")
        configure = run(["cmake", "-S", release, "-B", build, "-DCMAKE_BUILD_TYPE=Fast"], timeout=600)
        check(configure.code == 0, "the release does not configure")
        compiled = run(["cmake", "--build", build, "-j2", "--target", "grader"], timeout=1500)
        check(compiled.code == 0, "the release's grader does not build")
        env = dict(os.environ)
        env.pop("GRADER_ROOT", None)
        env["NO_COLOR"] = "1"
        # The course build's cache of lab builds (<build>/cache, beside bin/grader), not the release build's empty
        # one: a lab build's key hashes the compiler, the flags and every file it compiles (the lab's headers,
        # harness and baseline, the lab kit), so the course's lab1 build is found only if the release ships those
        # files unchanged, and anything missing or changed is built from the release's own files, as a student's
        # first grading does. It saves building lab1 from scratch (38 s of this test on a loaded 2-vCPU machine).
        env["GRADER_CACHE"] = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(grader.binary))), "cache")
        graded = run([os.path.join(build, "bin", "grader"), "lab1", "--quick", "--format", "json"], env=env, timeout=600)
        check(graded.code == ALL_PASSED, "the release's grader lab1 --quick exited %d" % graded.code)
        report = graded.json()
        check(os.path.realpath(report["submission"]).startswith(os.path.realpath(release)),
              "the release's grader graded %s, not the release's skeleton" % report["submission"])
        # The hidden cases are gone, but the student is still told how many the staff grade with (lab.withheld).
        lab1 = load_toml(os.path.join(args.root, "labs", "lab1-matvec", "lab.toml"))
        withheld = sum(visibility(c) in WITHHELD for item in lab1["correctness"] for c in item["cases"])
        withheld += sum(visibility(p) in WITHHELD for p in lab1.get("performance", []))
        check(withheld > 0, "lab1 has no hidden case to count")
        check(report["hidden_not_run"] == withheld,
              "the release's lab1 report counts %r hidden cases and items, the course's lab1 has %d" %
              (report["hidden_not_run"], withheld))
        graded = {c["name"] for t in report["tests"] for c in t.get("cases", [])}
        hidden_names = {c["name"] for item in lab1["correctness"] for c in item["cases"] if visibility(c) in WITHHELD}
        check(not graded & hidden_names, "the release graded hidden cases: %r" % sorted(graded & hidden_names))


def check_release_options(grader, args):
    labs = labs_of(args.root)
    check(labs, "no labs")
    first_dir, first = labs[0]
    with tempfile.TemporaryDirectory(prefix="instructor-release-options-") as temp:
        partial = os.path.join(temp, "partial")
        release_of(grader, args.root, partial, "--labs", "%s,%s" % (first["lab"]["id"], first["lab"]["slug"]))
        check_release_structure(args.root, partial, [first_dir])
        for top in ("datasets",):
            if os.path.isdir(os.path.join(partial, top)):
                names = [n for n in os.listdir(os.path.join(partial, top)) if os.path.isdir(os.path.join(partial, top, n))]
                check(set(names) <= {first_dir}, "a partial release holds %s/%r" % (top, names))

        occupied = os.path.join(temp, "occupied")
        os.makedirs(occupied)
        open(os.path.join(occupied, "keep.txt"), "w").write("mine\n")
        refused = grader(args.root, "release", "--out", occupied)
        check(refused.code == USAGE and "not an empty directory" in refused.stderr, "a non-empty --out was not refused")
        check(os.listdir(occupied) == ["keep.txt"], "a refused release touched --out")

        inside = os.path.join(args.root, "instructor-test-release-%d" % os.getpid())
        refused = grader(args.root, "release", "--out", inside)
        check(refused.code == USAGE and "inside the course repository" in refused.stderr, "an --out inside the repository was not refused")
        check(not os.path.exists(inside), "a refused release created %s" % inside)

        refused = grader(args.root, "release", "--out", os.path.join(temp, "x"), "--labs", "lab999")
        check(refused.code == USAGE and "lab999" in refused.stderr, "an unknown lab was not refused")
        check(not os.path.exists(os.path.join(temp, "x")), "a refused release created its --out")


def check_release_constructed(grader, args):
    with tempfile.TemporaryDirectory(prefix="instructor-release-constructed-") as temp:
        course = os.path.join(temp, "course")
        copy_course(args.root, course, with_labs=False)
        # Named as new-lab-cpu's, new-lab-steps' and visibility's lab (lab9-vector-ops), whose harness and flags it
        # keeps: the judge that writes its datasets and its lab build come from the cache whichever test built them.
        check(grader(course, "new-lab", "lab9", "vector-ops").code == ALL_PASSED, "new-lab failed")
        lab = os.path.join(course, "labs", "lab9-vector-ops")
        toml_path = os.path.join(lab, "lab.toml")
        text = open(toml_path).read()
        # A hidden dataset case (seed included), a comment about a hidden case, an item whose cases are all hidden,
        # and a hidden benchmark with its own comment; every name and comment says "secret".
        text = insert_after(text, '  { name = "public n = 17", dataset = "public-17" },\n',
                            '  # secret: the dataset below is the hard one\n'
                            '  { name = "secret dataset 33", dataset = "secret-33", visibility = "hidden" },\n')
        text = text.replace('{ name = "odd n = 99991", params = { n = 99991, a = 3 }, visibility = "hidden" },',
                            '{ name = "secret odd n = 99991", params = { n = 99991, a = 3 }, visibility = "hidden" },  # secret')
        text = text.replace('{ name = "odd n = 100003", params = { n = 100003 }, visibility = "hidden" }',
                            '{ name = "secret odd n = 100003", params = { n = 100003 }, visibility = "hidden" }')
        # After the scaffold's performance item and its hints: the blocks below start new tables.
        hints_end = text.index("]\n", text.index("hints = [", text.index("tiers = [ { at = 1.2, points = 0 }, { at = 2.0, points = 20 } ]"))) + 2
        text = insert_after(text, text[:hints_end][-60:],
                            '\n# secret: a benchmark students never see\n'
                            '[[performance]]\nname = "secret dot speedup, n = 2048"\nvariant = "dot"\n'
                            'params = { n = 2048 }\nbaseline = { variant = "dot" }\nflops = "2*n"\n'
                            'tiers = [ { at = 1.2, points = 0 }, { at = 2.0, points = 5 } ]\nvisibility = "hidden"\n'
                            '\n# secret: an item graded on hidden cases only\n'
                            '[[correctness]]\nname = "secret dot sizes"\npoints = 5\nvariants = ["dot"]\n'
                            'cases = [ { name = "secret n = 77777", params = { n = 77777 }, visibility = "hidden" } ]\n')
        open(toml_path, "w").write(text)
        manifest_path = os.path.join(course, "datasets", "lab9-vector-ops", "manifest.toml")
        with open(manifest_path, "a") as f:
            f.write('\n[[dataset]]\nname = "secret-33"\nseed = 987654321\nvariant = "axpy"\nparams = { n = 33, a = 1.5 }\n')
        check(grader(course, "datasets", "generate", "lab9").code == ALL_PASSED, "datasets generate failed")
        check(grader(course, "grade", "lab9", "--quick").code == ALL_PASSED, "the edited lab does not grade")
        mutant = os.path.join(lab, "mutants", "wrong_axpy")
        os.makedirs(mutant)
        open(os.path.join(mutant, "vector_ops.cpp"), "w").write(
            open(os.path.join(course, "reference", "lab9-vector-ops", "vector_ops.cpp")).read().replace("a * x[i] + y[i]", "a * x[i] - y[i]"))
        open(os.path.join(mutant, "mutant.toml"), "w").write('mistake = "subtracts y"\nmust_fail = ["axpy"]\n')

        release = os.path.join(temp, "release")
        result = release_of(grader, course, release)
        check(re.search(r"lab9-vector-ops\s+4 hidden case\(s\) and 2 hidden item\(s\) left out, 1 dataset\(s\) withheld",
                        result.stdout), "the summary does not count what was withheld")
        spec = load_toml(toml_path)
        check_release_structure(course, release, ["lab9-vector-ops"])
        evidence = evidence_from(course, [spec], withheld_names={"secret-33"}, withheld_seeds={"987654321"})
        leaks = scan_for_leaks(release, evidence)
        check(not leaks, "the release gives away:\n  " + "\n  ".join(leaks))
        for rel, path in all_files(release):
            text = read_text(path)
            check(text is None or "secret" not in text.lower() or rel.startswith(("grader", "tests", "docs", "bench")),
                  "%s mentions a secret" % rel)
        shipped_manifest = load_toml(os.path.join(release, "datasets", "lab9-vector-ops", "manifest.toml"))
        check([d["name"] for d in shipped_manifest["dataset"]] == ["public-17"], "the release's datasets: %r" % shipped_manifest)
        check(not [n for n in os.listdir(os.path.join(release, "datasets", "lab9-vector-ops")) if n.startswith("secret")],
              "the withheld dataset's files are in the release")
        check(grader(release, "datasets", "verify", "lab9").code == ALL_PASSED, "the release's datasets do not verify")
        # Unit tests that read the course's own files stay behind; the others ship.
        shipped_tests = os.listdir(os.path.join(release, "tests", "unit"))
        for left in ("test_lab_spec.cpp", "test_lab_toml_doc.cpp"):
            if os.path.exists(os.path.join(course, "tests", "unit", left)):
                check(left not in shipped_tests, "the release ships %s, which reads the course's own files" % left)
        check("test_expr.cpp" in shipped_tests, "the release lost the unit test test_expr.cpp")

        # What students read: the README without the staff's sections, the handout without the scaffold's note to
        # its author, and no mutant (the solution with one mistake).
        readme = read_text(os.path.join(release, "README.md"))
        for staff in ("## Teaching assistants", "## Instructors", "grader selftest", "docs/ta-guide.md",
                      "docs/instructor-guide.md", "<!-- staff -->"):
            check(staff not in readme, "the release's README still says %r" % staff)
        check("## Students" in readme, "the release's README lost the students' section")
        handout = read_text(os.path.join(release, "labs", "lab9-vector-ops", "README.md"))
        check("grader new-lab" not in handout and "scaffolded" not in handout and "<!-- staff -->" not in handout,
              "the release's handout keeps the scaffold's note to the author")
        check("scaffolded" not in read_text(os.path.join(release, "labs", "lab9-vector-ops", "lab.toml")),
              "the release's lab.toml says it was scaffolded")
        check(not os.path.exists(os.path.join(release, "labs", "lab9-vector-ops", "mutants")), "the release ships the lab's mutants")

        # A doc that quotes a line only the solution has stops the release, and leaves nothing behind.
        reference = open(os.path.join(course, "reference", "lab9-vector-ops", "vector_ops.cpp")).read().splitlines()
        quoted = [l.strip() for l in reference if "partial[k] +=" in l][0]
        with open(os.path.join(course, "docs", "notes.md"), "w") as f:
            f.write("# Notes\n\nThe trick:\n\n    %s\n" % quoted)
        stopped = grader(course, "release", "--out", os.path.join(temp, "leaky"))
        check(stopped.code == GRADED_FAILURES, "a release quoting the solution exited %d" % stopped.code)
        check(re.search(r"docs/notes\.md:5: quotes reference/lab9-vector-ops/vector_ops\.cpp", stopped.stderr),
              "the refusal does not name docs/notes.md:5 and the reference file")
        check(not os.path.exists(os.path.join(temp, "leaky")), "a refused release left its directory behind")
        os.remove(os.path.join(course, "docs", "notes.md"))

        # So does a lab whose public dataset is not generated: every student's run of that case would fail. The new
        # entry is public-17's copied, its inputs and expected kept, with no sha256 yet: generate fills it in (issue 31).
        public = [d for d in load_toml(manifest_path)["dataset"] if d["name"] == "public-17"][0]
        files = lambda table: "{ %s }" % ", ".join('%s = "%s"' % (k, v.replace("public-17", "public-5")) for k, v in table.items())
        with open(manifest_path, "a") as f:
            f.write('\n[[dataset]]\nname = "public-5"\nseed = 5\nvariant = "axpy"\nparams = { n = 5, a = 1 }\n'
                    'inputs = %s\nexpected = %s\n' % (files(public["inputs"]), files(public["expected"])))
        text = open(toml_path).read()
        open(toml_path, "w").write(insert_after(text, '  { name = "public n = 17", dataset = "public-17" },\n',
                                                '  { name = "public n = 5", dataset = "public-5" },\n'))
        stopped = grader(course, "release", "--out", os.path.join(temp, "ungenerated"))
        check(stopped.code == GRADED_FAILURES and re.search(r"public-5.*grader datasets generate lab9", stopped.stderr),
              "a lab with an ungenerated dataset was not refused with the command that fixes it")
        check(not os.path.exists(os.path.join(temp, "ungenerated")), "a refused release left its directory behind")
        check(grader(course, "datasets", "generate", "lab9").code == ALL_PASSED, "datasets generate failed")
        generated = [d for d in load_toml(manifest_path)["dataset"] if d["name"] == "public-5"][0]
        check(set(generated.get("sha256", {})) == set(generated["inputs"].values()) | set(generated["expected"].values()),
              "generate did not write the new entry's checksums: %r" % generated)
        check(grader(course, "datasets", "verify", "lab9").code == ALL_PASSED, "the generated entry does not verify")

        # So does a symbolic link (it could reach reference/).
        os.symlink(os.path.join(course, "reference", "lab9-vector-ops", "vector_ops.cpp"), os.path.join(lab, "solution.cpp"))
        stopped = grader(course, "release", "--out", os.path.join(temp, "linked"))
        check(stopped.code == GRADED_FAILURES and "solution.cpp is a symbolic link" in stopped.stderr,
              "a symbolic link in a lab was not refused")
        check(not os.path.exists(os.path.join(temp, "linked")), "a refused release left its directory behind")
        os.remove(os.path.join(lab, "solution.cpp"))

        # A course that is a git checkout is released as committed: a skeleton solved on disk and not committed is
        # refused, named, unless --allow-uncommitted (issue 31: a walk's autograder.zip shipped a solved skeleton).
        git = lambda *words: run(["git", "-C", course, "-c", "user.name=t", "-c", "user.email=t@example.org",
                                  "-c", "commit.gpgsign=false"] + list(words), timeout=120)
        if shutil.which("git") is None:
            raise Skipped("no git here: the uncommitted-changes refusal cannot be tried")
        check(git("init", "-q").code == 0 and git("add", "-A").code == 0 and git("commit", "-q", "-m", "course").code == 0,
              "git could not commit the constructed course")
        skeleton = os.path.join(course, "skeletons", "lab9-vector-ops", "vector_ops.cpp")
        with open(skeleton, "a") as f:
            f.write("// solved on disk, never committed\n")
        stopped = grader(course, "release", "--out", os.path.join(temp, "dirty"))
        check(stopped.code == GRADED_FAILURES and "skeletons/lab9-vector-ops/vector_ops.cpp" in stopped.stderr
              and "--allow-uncommitted" in stopped.stderr, "a release of an uncommitted skeleton was not refused, "
              "naming it (exit %d): %s" % (stopped.code, stopped.stderr[-2000:]))
        check(not os.path.exists(os.path.join(temp, "dirty")), "a refused release left its directory behind")
        allowed = release_of(grader, course, os.path.join(temp, "allowed"), "--allow-uncommitted")
        check("skeletons/lab9-vector-ops/vector_ops.cpp" in allowed.stderr, "--allow-uncommitted does not say what it ships")


# A lab from new-lab that declares steps (lab.toml [steps]) gets selftest's substitution proof like the course's own:
# dot is the best function, axpy a step; the substitution (axpy jumping to dot) must be caught, and the reference keep
# full marks. Its own file would fit better; it is small, and reuses this file's new-lab helpers.
def check_new_lab_steps(grader, args):
    with tempfile.TemporaryDirectory(prefix="instructor-new-lab-steps-") as root:
        grader_only(args.root, root)
        check(grader(root, "new-lab", "lab9", "vector-ops").code == ALL_PASSED, "new-lab failed")
        with open(os.path.join(root, "labs", "lab9-vector-ops", "lab.toml"), "a") as toml:
            toml.write('\n[steps]\nbest = "dot"\n\n[[steps.step]]\nvariant = "axpy"\nfunction = "axpy"\n')
        verdict = selftest_ok(grader, root, "lab9")
        substitution = verdict.get("substitution", {})
        print("substitution: %r" % substitution)
        check(substitution.get("checked") and not substitution.get("problems"), "the substitution was not proven: %r"
              % substitution)
        check(len(substitution.get("caught", [])) == 1 and substitution["caught"][0].startswith("axpy: "),
              "the step axpy was not caught: %r" % substitution)
        check(verdict["reference_score"] == verdict["max_score"], "the reference earned %r" % verdict["reference_score"])


CHECKS = {
    "new-lab-steps": check_new_lab_steps,
    "new-lab-cpu": check_new_lab_cpu,
    "new-lab-cuda": check_new_lab_cuda,
    "datasets-deterministic": check_datasets_deterministic,
    "visibility": check_visibility,
    "release": check_release,
    "release-options": check_release_options,
    "release-constructed": check_release_constructed,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grader", required=True, help="the grader executable")
    parser.add_argument("--root", required=True, help="the course repository")
    parser.add_argument("check", choices=sorted(CHECKS))
    args = parser.parse_args()
    args.root = os.path.abspath(args.root)
    try:
        CHECKS[args.check](Grader(args.grader), args)
    except Skipped as reason:
        print("SKIPPED: %s" % reason)
        return SKIPPED
    except CheckFailed as failure:
        print("FAILED: %s" % failure)
        return 1
    except subprocess.TimeoutExpired as timeout:
        print("FAILED: %s did not finish within %s s" % (" ".join(timeout.cmd), timeout.timeout))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
