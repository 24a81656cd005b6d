#!/usr/bin/env python3
"""export_e2e.py: `grader export` and `grader batch --canvas` end to end, without the platforms. One check per
CTest test (tests/export/CMakeLists.txt).

    python3 export_e2e.py --grader build/bin/grader --root . --work DIR gradescope reference

Each platform check exports lab1, lays the export out as the platform does under a temporary folder
(GRADER_PLATFORM_ROOT, grader/platforms/common.sh), runs the build step (with GRADER_PREBUILT: this build's grader,
no apt-get) and then the grading script on a submission, and validates the results file against the platform's
documented format (the validators below):

  gradescope reference      a copy of reference/lab1-matvec, timed: full correctness, a leaderboard; the zip
                            holds no reference/ and keeps run_autograder executable
  gradescope broken         a submission that does not compile, graded by a course whose lab1 has a hidden
                            benchmark (Gradescope's "hidden"), then the grader itself gone: a zero-score entry
                            that says what broke
  prairielearn reference    as for Gradescope, in PrairieLearn's /grade layout and results format
  prairielearn broken       not gradable, hidden benchmark shown only as "hidden test 1"; the grader gone
  gradescope reads-hidden   graded without bubblewrap, as the platform does: submissions that read the hidden
                            files at build time, by their absolute paths in the container: an #include of the lab's lab.toml (a compile error would quote its hidden
                            cases) and an .incbin of a dataset file (its bytes built into the program); each is a
                            build error that names the file as unreadable, and no hidden case reaches results.json
  prairielearn reads-hidden the same in PrairieLearn's /grade layout (the hidden files in /grade/tests)
  gpu-refused               a GPU lab is refused, pointing to `grader batch` and SLURM
  batch-canvas              a --quick batch with --canvas: canvas.csv row by row, the unmatched submission
                            listed on stderr and in summary.md

The reference checks run the build step from nothing, as a platform does: it builds lab1's harness and judge into
the platform's cache. The others, given --cache (this build's grader cache), start with lab1's finished builds
copied from it into the platform's cache (seed_platform_cache): the build step still runs, and finds them there.
Timings of the build step and the grading script are printed ("build step: 12.3 s"). A check prints what it ran
and, on failure, why, then exits 1. Python's standard library only.
"""
import argparse
import csv
import glob
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
GRADESCOPE_VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
HIDDEN_CASES = ["tall 1000 x 7", "odd 997 x 1013"]  # labs/lab1-matvec/lab.toml's hidden cases
HIDDEN_ITEM = "hidden bandwidth check"
# A benchmark only the staff grade with, added to a copy of lab1 (visibility: docs/lab-toml.md).
HIDDEN_ITEM_TOML = """
[[performance]]
name = "%s"
variant = "unrolled"
params = { m = 2000, n = 2000 }
baseline = { variant = "rowptr" }
flops = "2*m*n"
bytes = "8*(m*n + n + m)"
metric = "speedup"
tiers = [ { at = 1.0, points = 0 }, { at = 1.5, points = 5 } ]
visibility = "hidden"
""" % HIDDEN_ITEM


class CheckFailed(Exception):
    pass


def check(condition, message):
    if not condition:
        raise CheckFailed(message)


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --- the platforms' documented formats -------------------------------------------------------------------------

def validate_gradescope(results):
    """Gradescope's results.json (its autograder specification): the fields it reads, their types, the bounds."""
    check(isinstance(results, dict), "results.json is not an object")
    tests = results.get("tests")
    check(isinstance(tests, list), "no tests array")
    check(number(results.get("score")) or all(number(t.get("score")) for t in tests),
          "no score: neither at the top nor on every test")
    for key in ("output", "output_format", "test_output_format", "test_name_format"):
        check(key not in results or isinstance(results[key], str), "%s is not a string" % key)
    check("execution_time" not in results or isinstance(results["execution_time"], int), "execution_time is not whole seconds")
    for key in ("visibility", "stdout_visibility"):
        check(results.get(key, "visible") in GRADESCOPE_VISIBILITY, "%s %r is not one of Gradescope's" % (key, results.get(key)))
    total = 0.0
    for test in tests:
        check(isinstance(test.get("name"), str) and test["name"], "a test without a name: %r" % test)
        check(number(test.get("score")) and number(test.get("max_score")), "test %r without score and max_score" % test["name"])
        check(0 <= test["score"] <= test["max_score"] + 1e-9, "test %r scores %r of %r" % (test["name"], test["score"], test["max_score"]))
        check(test.get("visibility", "visible") in GRADESCOPE_VISIBILITY, "test %r visibility %r" % (test["name"], test.get("visibility")))
        check(test.get("status", "passed") in {"passed", "failed"}, "test %r status %r" % (test["name"], test.get("status")))
        check(isinstance(test.get("output", ""), str), "test %r output is not a string" % test["name"])
        check(all(isinstance(t, str) for t in test.get("tags", [])), "test %r tags are not strings" % test["name"])
        total += test["score"]
    check(results["score"] >= 0, "negative score")
    check(abs(results["score"] - total) < 1e-6, "score %r is not the sum of the tests' %r" % (results["score"], total))
    board = results.get("leaderboard", [])
    check(isinstance(board, list), "leaderboard is not an array")
    for entry in board:
        check(isinstance(entry.get("name"), str) and (number(entry.get("value")) or isinstance(entry.get("value"), str)),
              "leaderboard entry %r needs a name and a value" % entry)
        check(entry.get("order", "desc") in {"asc", "desc"}, "leaderboard order %r" % entry.get("order"))


def validate_prairielearn(results, size):
    """PrairieLearn's external-grader results.json: score 0..1 when gradable, tests with points, under 1 MB."""
    check(size < 1 << 20, "results.json is %d bytes; PrairieLearn takes at most 1 MB" % size)
    check(isinstance(results, dict), "results.json is not an object")
    gradable = results.get("gradable", True)
    check(isinstance(gradable, bool), "gradable is not a boolean")
    if gradable:
        check(number(results.get("score")), "a gradable result without a numeric score")
    if "score" in results:
        check(number(results["score"]) and 0 <= results["score"] <= 1, "score %r is not within 0..1" % results.get("score"))
    for key in ("message", "output"):
        check(key not in results or isinstance(results[key], str), "%s is not a string" % key)
    errors = results.get("format_errors", [])
    check(isinstance(errors, str) or (isinstance(errors, list) and all(isinstance(e, str) for e in errors)),
          "format_errors is neither a string nor strings")
    check(isinstance(results.get("tests", []), list), "tests is not an array")
    for test in results.get("tests", []):
        check(isinstance(test.get("name"), str) and test["name"], "a test without a name: %r" % test)
        if "points" in test or "max_points" in test:
            check(number(test.get("points")) and number(test.get("max_points")), "test %r: points without max_points" % test["name"])
            check(0 <= test["points"] <= test["max_points"] + 1e-9, "test %r has %r of %r points" % (test["name"], test["points"], test["max_points"]))
        for key in ("output", "message", "description"):
            check(key not in test or isinstance(test[key], str), "test %r: %s is not a string" % (test["name"], key))


# --- running -----------------------------------------------------------------------------------------------------

class Context:
    def __init__(self, args):
        self.grader = os.path.abspath(args.grader)
        self.root = os.path.abspath(args.root)
        self.work = os.path.abspath(args.work)
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.tmp = os.path.join(self.work, "tmp")
        os.makedirs(self.tmp)
        self.cache = os.path.abspath(args.cache) if args.cache else None

    def seed_platform_cache(self, platform_dir):
        """lab1's finished builds (<cache>/labs/lab1-matvec-<key>/, marked complete) copied from this build's cache
        into the cache the platform's scripts use under platform_dir (common.sh's cpu_cache_dir), so that the build
        step of a check that is not about it does not compile lab1's harness and judge again (10 to 60 s each, in
        four tests). An entry is named by its key: one that is not this lab1's build is never used."""
        if not self.cache:
            return
        common = os.path.join(self.root, "grader", "platforms", "common.sh")
        target = subprocess.run(["bash", "-c", '. "$0"; cpu_cache_dir "$1"', common, platform_dir],
                                capture_output=True, text=True, check=True).stdout.strip()
        for entry in glob.glob(os.path.join(self.cache, "labs", "lab1-matvec-*")):
            if os.path.isfile(os.path.join(entry, "complete")):
                shutil.copytree(entry, os.path.join(target, "labs", os.path.basename(entry)), symlinks=True)
                print("seeded %s with %s" % (target, os.path.basename(entry)))

    def env(self, extra=None):
        env = dict(os.environ, TMPDIR=self.tmp, NO_COLOR="1")
        env.update(extra or {})
        return env

    def run(self, cmd, expect=None, env=None, cwd=None, timeout=600):
        print("$ " + " ".join(cmd), flush=True)
        start = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=self.env(env), cwd=cwd, timeout=timeout)
        proc.seconds = time.monotonic() - start
        print(proc.stdout[-6000:] + proc.stderr[-6000:] + "(exit %d, %.1f s)" % (proc.returncode, proc.seconds), flush=True)
        if expect is not None:
            check(proc.returncode == expect, "exit code %d, expected %d" % (proc.returncode, expect))
        return proc

    def export(self, platform, out, root=None, extra=()):
        return self.run([self.grader, "--root", root or self.root, "export", platform, "lab1", "--out", out] + list(extra), expect=0)

    def submission(self, name):
        """A folder holding the submission's files: reference/lab1-matvec's or a tests/submissions/lab1 one."""
        source = os.path.join(self.root, "reference", "lab1-matvec") if name == "reference" else \
            os.path.join(self.root, "tests", "submissions", "lab1", name)
        target = os.path.join(self.work, "submission-" + name)
        shutil.copytree(source, target)
        return target

    def course_with_hidden_item(self):
        """A copy of the course whose lab1 has a hidden benchmark too, so hidden items reach the results."""
        course = os.path.join(self.work, "course")
        os.makedirs(course)
        for entry in ("CMakeLists.txt", "README.md", "grader", "bench", "docs"):
            source = os.path.join(self.root, entry)
            if os.path.isdir(source):
                shutil.copytree(source, os.path.join(course, entry), ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy2(source, os.path.join(course, entry))
        for tree in ("labs", "skeletons", "reference", "datasets"):
            shutil.copytree(os.path.join(self.root, tree, "lab1-matvec"), os.path.join(course, tree, "lab1-matvec"))
        with open(os.path.join(course, "labs", "lab1-matvec", "lab.toml"), "a") as toml:
            toml.write(HIDDEN_ITEM_TOML)
        return course


def unpack_zip(path, into):
    """Unpacks as Gradescope does, keeping each file's Unix mode (Python's zipfile alone drops it)."""
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            archive.extract(info, into)
            mode = info.external_attr >> 16
            if mode:
                os.chmod(os.path.join(into, info.filename), stat.S_IMODE(mode))
        return archive.namelist()


def gradescope_layout(ctx, zip_path, submission):
    """/autograder as Gradescope builds it: source/ (the zip), run_autograder copied up, submission/, results/."""
    fs_root = os.path.join(ctx.work, "gradescope-fs")
    autograder = os.path.join(fs_root, "autograder")
    names = unpack_zip(zip_path, os.path.join(autograder, "source"))
    shutil.copy2(os.path.join(autograder, "source", "run_autograder"), os.path.join(autograder, "run_autograder"))
    shutil.copytree(submission, os.path.join(autograder, "submission"))
    return fs_root, autograder, names


def gradescope_build_and_grade(ctx, fs_root, autograder):
    env = {"GRADER_PLATFORM_ROOT": fs_root, "GRADER_PREBUILT": ctx.grader}
    build = ctx.run(["bash", os.path.join(autograder, "source", "setup.sh")], expect=0, env=env)
    print("build step: %.1f s" % build.seconds)
    return grade_gradescope(ctx, fs_root, autograder)


def grade_gradescope(ctx, fs_root, autograder, env=None):
    env = dict(env or {}, GRADER_PLATFORM_ROOT=fs_root)
    grade = ctx.run([os.path.join(autograder, "run_autograder")], expect=0, cwd=autograder, env=env)
    print("run_autograder: %.1f s" % grade.seconds)
    path = os.path.join(autograder, "results", "results.json")
    check(os.path.isfile(path), "run_autograder wrote no results.json")
    with open(path) as f:
        results = json.load(f)
    validate_gradescope(results)
    return results


def check_gradescope_reference(ctx):
    zip_path = os.path.join(ctx.work, "autograder.zip")
    ctx.export("gradescope", zip_path)
    print("autograder.zip: %d bytes" % os.path.getsize(zip_path))
    fs_root, autograder, names = gradescope_layout(ctx, zip_path, ctx.submission("reference"))
    check("setup.sh" in names and "run_autograder" in names, "setup.sh and run_autograder are not at the zip's top: %s" % names[:10])
    check(os.access(os.path.join(autograder, "source", "run_autograder"), os.X_OK), "run_autograder lost its executable mode")
    check(not any(n.startswith("reference/") or "/reference/" in n for n in names), "the zip holds reference/")
    check(not any(n.startswith("course/grader/templates/") for n in names), "the zip holds new-lab's templates (a reference solution)")
    reference_bytes = open(os.path.join(ctx.root, "reference", "lab1-matvec", "matvec.cpp"), "rb").read()
    with zipfile.ZipFile(zip_path) as archive:
        for name in names:
            if not name.endswith("/"):
                check(archive.read(name) != reference_bytes, "%s is the reference solution" % name)
        toml = archive.read("course/labs/lab1-matvec/lab.toml").decode()
    check(all(case in toml for case in HIDDEN_CASES), "the zip's lab.toml lost its hidden cases: it could not grade with them")

    results = gradescope_build_and_grade(ctx, fs_root, autograder)
    print(json.dumps(results, indent=1)[:3000])
    correctness = [t for t in results["tests"] if "correctness" in t.get("tags", [])]
    check(len(correctness) == 3 and all(t["status"] == "passed" for t in correctness),
          "the reference does not pass every correctness item: %r" % [(t["name"], t["status"]) for t in correctness])
    check(results["score"] >= 40, "the reference scored %r" % results["score"])
    check(all(t["visibility"] == "visible" for t in results["tests"]), "lab1's items are all visible")
    text = json.dumps(results)
    check(not any(case in text for case in HIDDEN_CASES), "a hidden case's name reached results.json")
    board = {entry["name"]: entry["value"] for entry in results.get("leaderboard", [])}
    check("unrolled bandwidth, 10000 x 10000: GB/s" in board and board["unrolled bandwidth, 10000 x 10000: GB/s"] > 0,
          "no GB/s on the leaderboard: %r" % board)
    check(any(name.endswith("GFLOP/s") for name in board), "no GFLOP/s on the leaderboard: %r" % board)


def check_gradescope_broken(ctx):
    course = ctx.course_with_hidden_item()
    zip_path = os.path.join(ctx.work, "autograder.zip")
    ctx.export("gradescope", zip_path, root=course)
    fs_root, autograder, _ = gradescope_layout(ctx, zip_path, ctx.submission("does_not_compile"))
    ctx.seed_platform_cache(os.path.join(autograder, "source"))
    results = gradescope_build_and_grade(ctx, fs_root, autograder)
    check(results["score"] == 0, "a submission that does not compile scored %r" % results["score"])
    check("build error" in results["output"], "the output does not say it did not build: %r" % results["output"][:300])
    visibility = {t["name"]: t["visibility"] for t in results["tests"]}
    check(visibility.get(HIDDEN_ITEM) == "hidden", "the hidden benchmark's visibility is %r" % visibility.get(HIDDEN_ITEM))
    check(visibility.get("row pointers") == "visible", "a visible item is %r" % visibility.get("row pointers"))

    # The grader itself gone: run_autograder still leaves a results.json, a zero that says what broke.
    os.remove(os.path.join(autograder, "source", "course", "build", "bin", "grader"))
    results = grade_gradescope(ctx, fs_root, autograder)
    check(results["score"] == 0 and len(results["tests"]) == 1, "the fallback is not one zero-score entry: %r" % results)
    check("no grader to run" in results["output"], "the fallback does not say what broke: %r" % results["output"])
    check(results["tests"][0]["max_score"] == 85, "the fallback's max_score is %r, not the lab's 85" % results["tests"][0]["max_score"])


# --- reading the hidden files at build time ----------------------------------------------------------------------

HIDDEN_TOML_LINE = 'visibility = "hidden"'  # in lab.toml's hidden cases; never in what a student is shown
# The platforms' containers refuse the namespaces bubblewrap needs: grade without it, as they do, so that what keeps
# the hidden files from the compiler is their modes and the build user alone.
NO_SANDBOX = {"GRADER_SANDBOX": "off"}


def hidden_file_attacks(ctx, lab_toml, dataset):
    """lab1 submissions that read a hidden file while they are built, by its absolute path: (name, matvec.cpp, the
    file's name as the build log must give it). Each is the reference solution and the attack, so that where the
    attack works the submission builds and passes (with the stolen bytes in it)."""
    check(os.path.isfile(lab_toml) and os.path.isfile(dataset), "no %s or %s to attack" % (lab_toml, dataset))
    with open(os.path.join(ctx.root, "reference", "lab1-matvec", "matvec.cpp")) as f:
        skeleton = f.read() + "\n"
    include = skeleton + "// The compiler's errors would quote the hidden cases.\n#include \"%s\"\n" % lab_toml
    incbin = skeleton + ("// The dataset's bytes, built into the program.\n"
                         "asm(\".section .rodata\\n.globl stolen\\nstolen:\\n.incbin \\\"%s\\\"\\n.previous\\n\");\n" % dataset)
    return [("include-lab-toml", include, "lab.toml"), ("incbin-dataset", incbin, os.path.basename(dataset))]


def check_build_refused_hidden_file(results_text, log, file_name):
    """The build stopped because the compiler could not open `file_name`, and nothing of lab.toml came back."""
    check(not any(case in results_text for case in HIDDEN_CASES) and HIDDEN_TOML_LINE not in results_text,
          "a hidden case reached the results:\n%s" % results_text[:3000])
    # The compiler: "lab.toml: Permission denied"; the assembler: "file not found: .../square-8.y.npy".
    unreadable = r"%s: Permission denied|file not found: \S*%s" % (re.escape(file_name), re.escape(file_name))
    check(re.search(unreadable, log), "the build log does not name %s as unreadable:\n%s" % (file_name, log[:3000]))


def check_gradescope_reads_hidden(ctx):
    zip_path = os.path.join(ctx.work, "autograder.zip")
    ctx.export("gradescope", zip_path)
    fs_root, autograder, _ = gradescope_layout(ctx, zip_path, ctx.submission("does_not_compile"))
    course = os.path.join(autograder, "source", "course")
    ctx.seed_platform_cache(os.path.join(autograder, "source"))
    env = {"GRADER_PLATFORM_ROOT": fs_root, "GRADER_PREBUILT": ctx.grader}
    ctx.run(["bash", os.path.join(autograder, "source", "setup.sh")], expect=0, env=env)
    attacks = hidden_file_attacks(ctx, os.path.join(course, "labs", "lab1-matvec", "lab.toml"),
                                  os.path.join(course, "datasets", "lab1-matvec", "square-8.y.npy"))
    for name, source, file_name in attacks:
        print("--- %s" % name)
        with open(os.path.join(autograder, "submission", "matvec.cpp"), "w") as f:
            f.write(source)
        results = grade_gradescope(ctx, fs_root, autograder, NO_SANDBOX)
        print(json.dumps(results, indent=1)[:3000])
        check(results["score"] == 0 and "build error" in results["output"],
              "%s: not a build error: score %r, %r" % (name, results["score"], results["output"][:300]))
        check_build_refused_hidden_file(json.dumps(results), results["output"], file_name)


def check_prairielearn_reads_hidden(ctx):
    out = os.path.join(ctx.work, "pl-lab1")
    ctx.export("prairielearn", out)
    fs_root, entrypoint = prairielearn_layout(ctx, out, ctx.submission("does_not_compile"))
    ctx.seed_platform_cache(os.path.join(fs_root, "opt", "course-grader"))
    env = {"GRADER_PLATFORM_ROOT": fs_root, "GRADER_PREBUILT": ctx.grader}
    ctx.run(["bash", os.path.join(fs_root, "opt", "course-grader", "build.sh")], expect=0, env=env)
    tests = os.path.join(fs_root, "grade", "tests", "course")
    attacks = hidden_file_attacks(ctx, os.path.join(tests, "labs", "lab1-matvec", "lab.toml"),
                                  os.path.join(tests, "datasets", "lab1-matvec", "square-8.y.npy"))
    for name, source, file_name in attacks:
        print("--- %s" % name)
        with open(os.path.join(fs_root, "grade", "student", "matvec.cpp"), "w") as f:
            f.write(source)
        results = grade_prairielearn(ctx, fs_root, entrypoint, NO_SANDBOX)
        print(json.dumps(results, indent=1)[:3000])
        check(results["gradable"] is False, "%s: gradable, not a build error: %r" % (name, results.get("message")))
        check_build_refused_hidden_file(json.dumps(results), "\n".join(results.get("format_errors", [])), file_name)


def prairielearn_layout(ctx, out, submission):
    """PrairieLearn's job: the image at /opt/course-grader, /grade/{serverFilesCourse,tests,student}."""
    fs_root = os.path.join(ctx.work, "prairielearn-fs")
    info_path = os.path.join(out, "questions", "lab1-matvec", "info.json")
    with open(info_path) as f:
        info = json.load(f)
    options = info["externalGradingOptions"]
    check(info.get("gradingMethod") == "External" and options.get("enabled") is True, "info.json does not enable external grading: %r" % info)
    check(isinstance(options.get("image"), str) and options["image"], "info.json names no image")
    check(isinstance(options.get("timeout"), int) and 0 < options["timeout"] <= 600, "timeout %r" % options.get("timeout"))
    check(len(info.get("uuid", "")) == 36, "info.json has no uuid")
    shutil.copytree(os.path.join(out, "image"), os.path.join(fs_root, "opt", "course-grader"))
    grade = os.path.join(fs_root, "grade")
    for folder in options["serverFilesCourse"]:
        shutil.copytree(os.path.join(out, "serverFilesCourse", folder), os.path.join(grade, "serverFilesCourse", folder))
    shutil.copytree(os.path.join(out, "questions", "lab1-matvec", "tests"), os.path.join(grade, "tests"))
    shutil.copytree(submission, os.path.join(grade, "student"))
    entrypoint = fs_root + options["entrypoint"]
    check(options["entrypoint"].startswith("/grade/serverFilesCourse/") and os.path.isfile(entrypoint),
          "the entrypoint %r is not among the files PrairieLearn mounts" % options["entrypoint"])
    os.chmod(entrypoint, 0o755)  # PrairieLearn makes it executable before it runs it
    return fs_root, entrypoint


def prairielearn_build_and_grade(ctx, fs_root, entrypoint):
    env = {"GRADER_PLATFORM_ROOT": fs_root, "GRADER_PREBUILT": ctx.grader}
    build = ctx.run(["bash", os.path.join(fs_root, "opt", "course-grader", "build.sh")], expect=0, env=env)
    print("build step: %.1f s" % build.seconds)
    return grade_prairielearn(ctx, fs_root, entrypoint)


def grade_prairielearn(ctx, fs_root, entrypoint, env=None):
    grade = ctx.run([entrypoint], expect=0, env=dict(env or {}, GRADER_PLATFORM_ROOT=fs_root))
    print("grade.sh: %.1f s" % grade.seconds)
    path = os.path.join(fs_root, "grade", "results", "results.json")
    check(os.path.isfile(path), "grade.sh wrote no results.json")
    with open(path) as f:
        results = json.load(f)
    validate_prairielearn(results, os.path.getsize(path))
    return results


def check_prairielearn_reference(ctx):
    out = os.path.join(ctx.work, "pl-lab1")
    ctx.export("prairielearn", out, extra=["--image", "example/course-grader-lab1", "--timeout", "300"])
    image_toml = open(os.path.join(out, "image", "course", "labs", "lab1-matvec", "lab.toml")).read()
    check(not any(case in image_toml for case in HIDDEN_CASES), "the image, which may be public, holds hidden cases")
    check(not os.path.exists(os.path.join(out, "image", "course", "reference")), "the image holds reference/")
    tests_toml = open(os.path.join(out, "questions", "lab1-matvec", "tests", "course", "labs", "lab1-matvec", "lab.toml")).read()
    check(all(case in tests_toml for case in HIDDEN_CASES), "the question's tests/ lost the hidden cases")
    fs_root, entrypoint = prairielearn_layout(ctx, out, ctx.submission("reference"))
    results = prairielearn_build_and_grade(ctx, fs_root, entrypoint)
    print(json.dumps(results, indent=1)[:3000])
    check(results["gradable"] is True, "the reference is not gradable")
    check(results["score"] >= 0.5, "the reference scored %r of 1" % results["score"])
    names = [t["name"] for t in results["tests"]]
    check(names[:3] == ["row pointers", "contiguous layout", "unrolled"], "tests %r" % names)
    check(all(t["points"] == t["max_points"] for t in results["tests"][:3]), "the reference lost correctness points")
    check(not any(case in json.dumps(results) for case in HIDDEN_CASES), "a hidden case's name reached results.json")


def check_prairielearn_broken(ctx):
    course = ctx.course_with_hidden_item()
    out = os.path.join(ctx.work, "pl-lab1")
    ctx.export("prairielearn", out, root=course)
    fs_root, entrypoint = prairielearn_layout(ctx, out, ctx.submission("does_not_compile"))
    ctx.seed_platform_cache(os.path.join(fs_root, "opt", "course-grader"))
    results = prairielearn_build_and_grade(ctx, fs_root, entrypoint)
    check(results["gradable"] is False, "a submission that does not compile is gradable: %r" % results.get("gradable"))
    check(any("error" in e for e in results.get("format_errors", [])), "no compiler error in format_errors")
    names = [t["name"] for t in results["tests"]]
    check("hidden test 1" in names and HIDDEN_ITEM not in json.dumps(results), "the hidden benchmark is named: %r" % names)

    image = os.path.join(fs_root, "opt", "course-grader")
    os.remove(os.path.join(image, "course", "build", "bin", "grader"))
    results = grade_prairielearn(ctx, fs_root, entrypoint)
    check(results["gradable"] is False and "no grader to run" in results["message"], "the fallback says %r" % results)


def check_gpu_refused(ctx):
    for platform, out in (("gradescope", os.path.join(ctx.work, "gpu.zip")), ("prairielearn", os.path.join(ctx.work, "gpu"))):
        proc = ctx.run([ctx.grader, "--root", ctx.root, "export", platform, "lab5", "--out", out], expect=2)
        check("grader batch" in proc.stderr and "--slurm" in proc.stderr, "the refusal does not point to grader batch and SLURM")
        check(not os.path.exists(out), "a refused export wrote %s" % out)


def check_batch_canvas(ctx):
    submissions = os.path.join(ctx.work, "submissions")
    os.makedirs(submissions)
    shutil.copytree(os.path.join(ctx.root, "reference", "lab1-matvec"), os.path.join(submissions, "jdoe"))
    shutil.copytree(os.path.join(ctx.root, "tests", "submissions", "lab1", "does_not_compile"), os.path.join(submissions, "rroe-late"))
    shutil.copytree(os.path.join(ctx.root, "skeletons", "lab1-matvec"), os.path.join(submissions, "mallory"))
    roster = os.path.join(ctx.work, "roster.csv")
    with open(roster, "w", newline="", encoding="utf-8-sig") as f:
        f.write("Student,ID,SIS User ID,SIS Login ID,Section,Lab 0 (11)\r\n"
                "    Points Possible,,,,,10\r\n"
                "\"Doe, Jane\",4242,s1001,jdoe@uni.edu,Section A,10\r\n"
                "\"Roe, Richard\",4343,s1002,rroe,Section B,\r\n"
                "\"Poe, Edgar\",4545,s1004,epoe,Section B,\r\n")
    mapping = os.path.join(ctx.work, "map.csv")
    with open(mapping, "w") as f:
        f.write("submission,student\nrroe-late,s1002\n")
    out = os.path.join(ctx.work, "grades")
    proc = ctx.run([ctx.grader, "--root", ctx.root, "batch", "lab1", submissions, "--out", out, "--quick", "--jobs", "2",
                    "--canvas", roster, "--canvas-map", mapping, "--canvas-assignment", "Lab 1 (12)"], expect=0)
    check("mallory" in proc.stderr and "no roster row" in proc.stderr, "stderr does not list the unmatched submission")
    with open(os.path.join(out, "canvas.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    check(rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Lab 1 (12)"], "header %r" % rows[0])
    check(rows[1] == ["Points Possible", "", "", "", "", "80"], "points possible %r" % rows[1])
    by_id = {row[1]: row for row in rows[2:]}
    check(by_id["4242"][5] == "40", "jdoe's --quick score (40: correctness only) is %r" % by_id["4242"][5])
    check(by_id["4343"][5] == "0", "rroe-late (mapped to s1002, does not compile) is %r" % by_id["4343"][5])
    check(by_id["4545"][5] == "", "epoe, without a submission, has %r" % by_id["4545"][5])
    check(len(rows) == 5, "canvas.csv has %d rows" % len(rows))
    summary = open(os.path.join(out, "summary.md"), encoding="utf-8").read()
    check("## Canvas" in summary and "- mallory: no roster row" in summary, "summary.md does not list mallory")
    # A roster that is not Canvas's: refused before anyone is graded.
    bad = os.path.join(ctx.work, "bad.csv")
    with open(bad, "w") as f:
        f.write("name,email\nx,y\n")
    proc = ctx.run([ctx.grader, "--root", ctx.root, "batch", "lab1", submissions, "--out", os.path.join(ctx.work, "g2"),
                    "--quick", "--canvas", bad], expect=2)
    check("bad.csv:1: no \"Student\" and \"ID\" columns" in proc.stderr, "the bad roster's error does not name it")
    check(not os.path.exists(os.path.join(ctx.work, "g2", "grades.csv")), "a batch with a bad roster graded anyway")


CHECKS = {
    ("gradescope", "reference"): check_gradescope_reference,
    ("gradescope", "broken"): check_gradescope_broken,
    ("prairielearn", "reference"): check_prairielearn_reference,
    ("prairielearn", "broken"): check_prairielearn_broken,
    ("gradescope", "reads-hidden"): check_gradescope_reads_hidden,
    ("prairielearn", "reads-hidden"): check_prairielearn_reads_hidden,
    ("gpu-refused", None): check_gpu_refused,
    ("batch-canvas", None): check_batch_canvas,
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--cache", help="this build's grader cache: lab1's builds are copied from it (seed_platform_cache)")
    parser.add_argument("check")
    parser.add_argument("variant", nargs="?")
    args = parser.parse_args()
    run = CHECKS.get((args.check, args.variant))
    if run is None:
        parser.error("unknown check %s %s" % (args.check, args.variant or ""))
    ctx = Context(args)
    try:
        run(ctx)
    except CheckFailed as failure:
        print("FAILED: %s" % failure)
        return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
