#!/usr/bin/env python3
"""make_class.py: writes the synthetic lab1 class the batch tests grade (tests/batch/CMakeLists.txt).

    python3 make_class.py OUT            # OUT/class/<one entry per student>, OUT/expected.json
    python3 make_class.py OUT --small    # OUT/class: 12 plain folders (the kill-and-resume and SLURM tests)
    python3 make_class.py OUT --mix 100  # OUT/class: 100 students, 40% correct, in mixed forms (the figures)

Every student comes from one of the few source variants in variants/ (fast, slow, wrong, crash, hang,
compile_error, forkbomb, diskfill), in one of the forms course platforms export (a folder, a folder inside a
wrapping folder, .zip, .tar.gz, .tgz), plus hostile or broken submissions built here: archives with '../'
or absolute entries, links, devices, a gzip bomb and a zip bomb, too many entries, a missing file, two
submissions for one student, a file that is no archive. expected.json gives, per student, the gradebook row
a --quick batch must produce and what the report's status_details must contain. Python's standard library
only.
"""
import argparse
import io
import json
import os
import shutil
import sys
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = os.path.join(HERE, "variants")

# A --quick batch (hidden cases included): the gradebook cells for row pointers, contiguous layout, unrolled
# and the two performance items, and the status column.
OUTCOMES = {
    "fast": ("passed", [10, 10, 20, 0, 0]),
    "slow": ("passed", [10, 10, 20, 0, 0]),
    "wrong": ("wrong_answer", [10, 10, 0, 0, 0]),
    "crash": ("crash", [10, 10, 0, 0, 0]),
    "hang": ("time_limit", [10, 0, 20, 0, 0]),
    "compile_error": ("build_error", [0, 0, 0, 0, 0]),
    "forkbomb": ("policy_refused", [0, 0, 0, 0, 0]),
    "diskfill": ("output_limit", [10, 10, 0, 0, 0]),  # "wrote past the file-size limit"
    "missing": ("missing_file", [0, 0, 0, 0, 0]),
    "refused": ("missing_file", [0, 0, 0, 0, 0]),  # or bad_archive, once the verdict table has it
}

# (id, variant, form). Forms: folder, wrapped (one folder inside), zip, zip-wrapped, tar.gz, tar.gz-wrapped, tgz.
GRADED = [
    ("s01-fast-folder", "fast", "folder"),
    ("s02-fast-wrapped", "fast", "wrapped"),
    ("s03-fast-zip", "fast", "zip"),
    ("s04-fast-zip-wrapped", "fast", "zip-wrapped"),
    ("s05-fast-targz", "fast", "tar.gz"),
    ("s06-fast-tgz", "fast", "tgz"),
    ("s07-slow-folder", "slow", "folder"),
    ("s08-slow-zip", "slow", "zip"),
    ("s09-slow-targz-wrapped", "slow", "tar.gz-wrapped"),
    ("s10-slow-wrapped", "slow", "wrapped"),
    ("s11-wrong-folder", "wrong", "folder"),
    ("s12-wrong-zip", "wrong", "zip"),
    ("s13-wrong-targz", "wrong", "tar.gz"),
    ("s14-crash-folder", "crash", "folder"),
    ("s15-crash-zip", "crash", "zip"),
    ("s16-hang-folder", "hang", "folder"),
    ("s17-compile-error-folder", "compile_error", "folder"),
    ("s18-compile-error-zip", "compile_error", "zip"),
    ("s19-compile-error-wrapped", "compile_error", "wrapped"),
    ("s20-forkbomb-folder", "forkbomb", "folder"),
    ("s21-forkbomb-targz", "forkbomb", "tar.gz"),
    ("s22-diskfill-folder", "diskfill", "folder"),
]

# The kill-and-resume and SLURM tests: plain folders, quick to grade, a mix of outcomes.
SMALL = [("r%02d" % i, v) for i, v in enumerate(["fast", "slow", "wrong", "crash"] * 3, start=1)]

# A class for timing the batch itself (--mix N): four in ten correct (and so timed), the rest broken.
MIX_VARIANTS = ["fast", "slow", "wrong", "crash", "compile_error", "fast", "slow", "wrong", "forkbomb", "hang"]
MIX_FORMS = ["folder", "zip", "tar.gz", "wrapped"]


def source(variant):
    with open(os.path.join(VARIANTS, variant + ".cpp"), "rb") as f:
        return f.read()


def write_tar(path, members, mode="w:gz"):
    """members: list of (TarInfo, bytes or None)."""
    with tarfile.open(path, mode, compresslevel=1) if mode.endswith("gz") else tarfile.open(path, mode) as tar:
        for info, data in members:
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)


def file_info(name, size=0):
    info = tarfile.TarInfo(name)
    info.size = size
    info.mode = 0o644
    return info


def write_zip(path, members):
    """members: list of (name, bytes)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name), data, compress_type=zipfile.ZIP_DEFLATED)


def write_student(folder, sid, variant, form):
    code = source(variant)
    if form in ("folder", "wrapped"):
        where = os.path.join(folder, sid, "lab1-matvec") if form == "wrapped" else os.path.join(folder, sid)
        os.makedirs(where)
        with open(os.path.join(where, "matvec.cpp"), "wb") as f:
            f.write(code)
        with open(os.path.join(where, "NOTES.txt"), "w") as f:  # extra files are never read
            f.write("my notes\n")
    elif form in ("zip", "zip-wrapped"):
        prefix = "lab1/" if form == "zip-wrapped" else ""
        write_zip(os.path.join(folder, sid + ".zip"), [(prefix + "matvec.cpp", code), (prefix + "NOTES.txt", b"notes\n")])
    elif form in ("tar.gz", "tgz", "tar.gz-wrapped"):
        prefix = "work/" if form == "tar.gz-wrapped" else ""
        ext = ".tgz" if form == "tgz" else ".tar.gz"
        write_tar(os.path.join(folder, sid + ext), [(file_info(prefix + "matvec.cpp"), code)])
    else:
        raise ValueError(form)


def write_hostile(folder, escape_name):
    """The submissions a batch must refuse or mark missing; returns {id: (outcome, details substring)}."""
    code = source("fast")
    out = {}

    os.makedirs(os.path.join(folder, "s23-missing-folder"))
    with open(os.path.join(folder, "s23-missing-folder", "matvec.c"), "wb") as f:  # the wrong name
        f.write(code)
    out["s23-missing-folder"] = ("missing", "matvec.cpp is missing")

    write_zip(os.path.join(folder, "s24-missing-zip.zip"), [("README.md", b"I forgot the code\n")])
    out["s24-missing-zip"] = ("missing", "matvec.cpp is missing")

    os.makedirs(os.path.join(folder, "s25-missing-empty"))
    out["s25-missing-empty"] = ("missing", "matvec.cpp is missing")

    write_zip(os.path.join(folder, "s26-dotdot-zip.zip"), [("matvec.cpp", code), ("../" + escape_name, b"escaped\n")])
    out["s26-dotdot-zip"] = ("refused", "archive refused: entry '../%s' climbs out of the folder" % escape_name)

    write_tar(os.path.join(folder, "s27-dotdot-targz.tar.gz"),
              [(file_info("matvec.cpp"), code), (file_info("a/../../" + escape_name), b"escaped\n")])
    out["s27-dotdot-targz"] = ("refused", "climbs out of the folder")

    absolute = "/tmp/" + escape_name
    write_tar(os.path.join(folder, "s28-absolute-targz.tar.gz"), [(file_info(absolute), b"escaped\n")])
    out["s28-absolute-targz"] = ("refused", "archive refused: entry '%s' is an absolute path" % absolute)

    link = tarfile.TarInfo("matvec.cpp")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    write_tar(os.path.join(folder, "s29-symlink-targz.tar.gz"), [(link, None)])
    out["s29-symlink-targz"] = ("refused", "archive refused: entry 'matvec.cpp' is a symbolic link")

    hard = tarfile.TarInfo("matvec.cpp")
    hard.type = tarfile.LNKTYPE
    hard.linkname = "other.cpp"
    write_tar(os.path.join(folder, "s30-hardlink-tar.tar"), [(file_info("other.cpp"), code), (hard, None)], mode="w")
    out["s30-hardlink-tar"] = ("refused", "archive refused: entry 'matvec.cpp' is a hard link")

    device = tarfile.TarInfo("matvec.cpp")
    device.type = tarfile.CHRTYPE
    device.devmajor, device.devminor = 1, 3  # /dev/null's numbers
    write_tar(os.path.join(folder, "s31-device-targz.tar.gz"), [(device, None)])
    out["s31-device-targz"] = ("refused", "archive refused: entry 'matvec.cpp' is a character device")

    zeros = bytes(100 << 20)  # 100 MiB, past the default 64 MiB; compresses to ~100 KiB
    write_tar(os.path.join(folder, "s32-bomb-targz.tar.gz"), [(file_info("matvec.cpp"), code), (file_info("zeros.bin"), zeros)])
    out["s32-bomb-targz"] = ("refused", "archive refused: it expands past 64 MiB")

    write_zip(os.path.join(folder, "s33-zipbomb-zip.zip"), [("matvec.cpp", code), ("zeros.bin", zeros)])
    out["s33-zipbomb-zip"] = ("refused", "archive refused: it expands past 64 MiB")

    write_zip(os.path.join(folder, "s34-manyfiles-zip.zip"), [("matvec.cpp", code)] + [("f/%d" % i, b"") for i in range(2100)])
    out["s34-manyfiles-zip"] = ("refused", "archive refused: it holds more than 2000 entries")

    with open(os.path.join(folder, "s35-rar.rar"), "wb") as f:
        f.write(b"Rar!\x1a\x07\x00")
    out["s35-rar.rar"] = ("refused", "is not a folder or a .zip")

    os.makedirs(os.path.join(folder, "s36-twice"))
    with open(os.path.join(folder, "s36-twice", "matvec.cpp"), "wb") as f:
        f.write(code)
    write_zip(os.path.join(folder, "s36-twice.zip"), [("matvec.cpp", code)])
    out["s36-twice"] = ("refused", "two submissions for 's36-twice'")

    with open(os.path.join(folder, "s37-not-a-zip.zip"), "wb") as f:
        f.write(b"this is not a zip file\n")
    out["s37-not-a-zip"] = ("refused", "archive refused: it cannot be read")

    # Not students: hidden entries are skipped.
    os.makedirs(os.path.join(folder, ".DS_Store.d"))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--mix", type=int, default=0)
    parser.add_argument("--escape-name", default="grader-batch-test-escaped.cpp")
    args = parser.parse_args()
    folder = os.path.join(args.out, "class")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    expected = {}
    if args.mix:
        for i in range(args.mix):
            sid, variant = "m%03d" % (i + 1), MIX_VARIANTS[i % len(MIX_VARIANTS)]
            write_student(folder, sid, variant, MIX_FORMS[(i // len(MIX_VARIANTS)) % len(MIX_FORMS)])
            expected[sid] = {"variant": variant, "status": OUTCOMES[variant][0], "cells": OUTCOMES[variant][1], "details": ""}
    elif args.small:
        for sid, variant in SMALL:
            write_student(folder, sid, variant, "folder")
            expected[sid] = {"variant": variant, "status": OUTCOMES[variant][0], "cells": OUTCOMES[variant][1], "details": ""}
    else:
        for sid, variant, form in GRADED:
            write_student(folder, sid, variant, form)
            expected[sid] = {"variant": variant, "status": OUTCOMES[variant][0], "cells": OUTCOMES[variant][1], "details": ""}
        for sid, (outcome, details) in write_hostile(folder, args.escape_name).items():
            expected[sid] = {"variant": outcome, "status": OUTCOMES[outcome][0], "cells": OUTCOMES[outcome][1], "details": details}
    with open(os.path.join(args.out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=2, sort_keys=True)
    print("wrote %d students to %s" % (len(expected), folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
