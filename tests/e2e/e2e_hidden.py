"""e2e_hidden.py: a submission that reads the lab's hidden files while it is built, graded by a root grader without
bubblewrap (as on Gradescope and PrairieLearn, or `grader batch` where bubblewrap does not work). Registered into
e2e.py's CHECKS by checks(e2e), like e2e_replay.py.

    reads-hidden include-lab-toml   lab1's reference plus `#include "/abs/path/labs/lab1-matvec/lab.toml"`: where
                                    the compiler can read it, its errors quote the hidden cases in the build log
    reads-hidden incbin-dataset     lab1's reference plus inline assembly that `.incbin`s a dataset file: where the
                                    assembler can read it, the bytes are built into the program, which then passes
    reads-hidden include-lab-toml-by-name   `#include "lab.toml"`, found where the compiler's -I is the lab's folder
                                    (as it was, sandbox or not): graded with the sandbox if this machine has one, it
                                    must find no such file (the compiler's -I is a copy of the lab's headers alone)

The course is a copy kept from other users (a folder of mode 0700, as a TA's home or setup.sh's chmod makes it).
Each must be a build error whose log names the file as unreadable, with nothing of lab.toml in the report; the
build's inputs, kept with --keep-workdir, are readable by the build user and the lab's files are not. The
include variant then grades the same submission against the repository itself, readable by everyone, and checks
that the grader warns on stderr (docs/threat-model.md: a world-readable course is the known limit).
"""
import os
import re
import shutil
import tempfile

LAB1 = "lab1-matvec"
BUILD_USER = 65533  # grader/src/run/unprivileged.h
HIDDEN_CASES = ["tall 1000 x 7", "odd 997 x 1013"]  # labs/lab1-matvec/lab.toml's hidden cases
HIDDEN_TOML_LINE = 'visibility = "hidden"'
EXPOSED_WARNING = "is readable by every user"


def private_course(source_root, into):
    """lab1 alone, in `into` (mode 0700): the lab, its datasets and the lab kit."""
    for tree in (("labs", LAB1), ("datasets", LAB1), ("grader", "labkit")):
        shutil.copytree(os.path.join(source_root, *tree), os.path.join(into, *tree))
    return into


def attack_source(source_root, variant, lab_toml, dataset):
    """matvec.cpp: the reference solution and the attack, so that where the attack works the submission builds."""
    with open(os.path.join(source_root, "reference", LAB1, "matvec.cpp")) as f:
        source = f.read() + "\n"
    if variant == "include-lab-toml":
        return source + "// The compiler's errors would quote the hidden cases.\n#include \"%s\"\n" % lab_toml, "lab.toml"
    if variant == "include-lab-toml-by-name":
        return source + "// Beside matvec.h in the lab's folder.\n#include \"lab.toml\"\n", "lab.toml"
    return source + ("// The dataset's bytes, built into the program.\n"
                     "asm(\".section .rodata\\n.globl stolen\\nstolen:\\n.incbin \\\"%s\\\"\\n.previous\\n\");\n"
                     % dataset), os.path.basename(dataset)


def readable_by_build_user(path):
    """Tried in a forked child that becomes the build user (no program to execute: this Python may itself be in a
    folder that user cannot enter)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setgid(BUILD_USER)
            os.setuid(BUILD_USER)
            with open(path, "rb") as f:
                f.read(1)
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def grade(e2e, grader, root, submission, tmp, sandbox=False):
    if sandbox:
        os.environ.pop("GRADER_SANDBOX", None)  # bubblewrap where this machine has it
    else:
        os.environ["GRADER_SANDBOX"] = "off"  # as on the platforms: no bubblewrap
    os.environ["TMPDIR"] = tmp
    run = grader.run("grade", "lab1", "--submission", submission, "--format", "json", "--quick", "--keep-workdir",
                     root=root)
    return run, run.json()


def check_reads_hidden(e2e, grader, args):
    check = e2e.check
    if os.geteuid() != 0:
        raise e2e.Skip("not root: the grader changes user for the compiler only as root; as anyone else the compiler "
                       "runs as the grader's own user, who owns the course anyway")
    check(args.name in ("include-lab-toml", "incbin-dataset", "include-lab-toml-by-name"), "no variant %r" % args.name)
    by_name = args.name == "include-lab-toml-by-name"
    private = tempfile.mkdtemp(prefix="e2e-hidden-")  # 0700: no other user enters
    tmp = tempfile.mkdtemp(prefix="e2e-hidden-tmp-")
    os.chmod(tmp, 0o755)  # the work directories: the build user and nobody pass through
    try:
        course = private_course(args.root, os.path.join(private, "course"))
        lab_toml = os.path.join(course, "labs", LAB1, "lab.toml")
        dataset = os.path.join(course, "datasets", LAB1, "square-8.y.npy")
        source, file_name = attack_source(args.root, args.name, lab_toml, dataset)
        submission = os.path.join(private, "submission")
        os.makedirs(submission)
        with open(os.path.join(submission, "matvec.cpp"), "w") as f:
            f.write(source)

        run, report = grade(e2e, grader, course, submission, tmp, sandbox=by_name)
        text = run.stdout
        check(not any(case in text for case in HIDDEN_CASES) and HIDDEN_TOML_LINE not in text,
              "the report quotes lab.toml's hidden cases:\n%s" % report.get("build_log", "")[:3000])
        check(report["status"] == "build_error", "status %r (%s): the build read %s" % (
            report["status"], report.get("status_details"), file_name))
        # The compiler: "lab.toml: Permission denied"; the assembler: "file not found: .../square-8.y.npy"; by name:
        # "lab.toml: No such file or directory".
        unreadable = r"%s: Permission denied|file not found: \S*%s" % (re.escape(file_name), re.escape(file_name))
        if by_name:
            unreadable = r"%s: No such file or directory" % re.escape(file_name)
        check(re.search(unreadable, report["build_log"]), "the build log does not name %s as unreadable:\n%s" % (
            file_name, report["build_log"][:3000]))
        check(EXPOSED_WARNING not in run.stderr, "a warning about a course that is private:\n%s" % run.stderr[-2000:])

        # What the build user could read: the build inputs yes, the lab's own files no.
        inputs = [os.path.join(folder, "build-inputs") for folder, names, _ in os.walk(tmp) if "build-inputs" in names]
        check(len(inputs) == 1, "not one kept work directory with build-inputs under %s: %r" % (tmp, inputs))
        workdir = os.path.dirname(inputs[0])
        for path in (os.path.join(inputs[0], "lab", "matvec.h"), os.path.join(inputs[0], "labkit", "labkit", "labkit.h"),
                     os.path.join(workdir, "src", "matvec.cpp")):
            check(readable_by_build_user(path), "the build user cannot read %s, which the build needs" % path)
        for path in (lab_toml, dataset, os.path.join(course, "labs", LAB1, "matvec.h")):
            check(not readable_by_build_user(path), "the build user can read %s" % path)
        print("%s: a build error naming %s as unreadable; nothing of lab.toml in the report" % (args.name, file_name))

        if args.name == "include-lab-toml":
            exposed_toml = os.path.join(os.path.abspath(args.root), "labs", LAB1, "lab.toml")
            if not readable_by_build_user(exposed_toml):
                print("the repository is not readable by other users here: its warning is not checked")
                return
            source, _ = attack_source(args.root, args.name, exposed_toml, dataset)
            with open(os.path.join(submission, "matvec.cpp"), "w") as f:
                f.write(source)
            run, _ = grade(e2e, grader, args.root, submission, tmp)
            check(EXPOSED_WARNING in run.stderr and exposed_toml in run.stderr,
                  "no warning that %s is readable by every user:\n%s" % (exposed_toml, run.stderr[-2000:]))
    finally:
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(tmp, ignore_errors=True)


def checks(e2e):
    return {"reads-hidden": lambda grader, args: check_reads_hidden(e2e, grader, args)}
