"""e2e_replay.py: end-to-end checks of replay bundles (`grader grade --bundle`, `grader replay`), registered into
e2e.py's CHECKS by checks(e2e): e2e.py passes itself in, so these use its Grader, check() and exit codes.

    replay-bundle            lab1's reference, --quick, with --bundle: every field of bundle.json; replay: no differences
    replay-timed-bundle      the same, timed: each performance item's raw samples are in the bundle, as many as the report's reps
    replay-refuses-changed-lab   a lab file edited after grading: replay refuses (exit 7), naming the file; another
                             submission: replay says what differs (exit 8)
    noise-retry              a copy of lab1 whose speedup tiers are so dense that every interval holds a threshold:
                             the item is measured again once (a 0.5 s budget), pooled, flagged within noise and scored
                             at its interval's upper end
"""
import hashlib
import json
import os
import shutil
import subprocess
import tempfile

REPLAY_REFUSED, REPLAY_DIFFERS = 7, 8  # grader/src/cli/exit_codes.h
LAB1 = "lab1-matvec"


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def lab1_root(e2e, source_root):
    """A course tree holding lab1 alone (lab files that may be edited without touching the repository)."""
    temp = tempfile.mkdtemp(prefix="e2e-replay-root-")
    shutil.copytree(os.path.join(source_root, "labs", LAB1), os.path.join(temp, "labs", LAB1))
    shutil.copytree(os.path.join(source_root, "datasets", LAB1), os.path.join(temp, "datasets", LAB1))
    shutil.copytree(os.path.join(source_root, "grader", "labkit"), os.path.join(temp, "grader", "labkit"))
    return temp


def grade_with_bundle(e2e, grader, root, bundle, extra):
    reference = os.path.join(grader.root, "reference", LAB1)
    run = grader.run("grade", "lab1", "--submission", reference, "--format", "json", "--bundle", bundle, *extra, root=root)
    e2e.check(run.code == e2e.ALL_PASSED, "grading lab1's reference: exit code %d" % run.code)
    e2e.check(os.path.isfile(os.path.join(bundle, "bundle.json")), "no %s/bundle.json" % bundle)
    with open(os.path.join(bundle, "bundle.json")) as f:
        return run.json(), json.load(f)


def check_bundle_fields(e2e, root, report, bundle_dir, bundle):
    check = e2e.check
    check(bundle.get("schema") == "grader-bundle/1", "schema %r" % bundle.get("schema"))
    check(bundle["lab"] == "lab1", "lab %r" % bundle["lab"])
    check(bundle["seed"] == report["seed"], "the bundle's seed %r, the report's %r" % (bundle["seed"], report["seed"]))
    # Every lab file, hashed as it is on disk.
    lab_dir = os.path.join(root, "labs", LAB1)
    for folder, _, names in os.walk(lab_dir):
        for name in names:
            path = os.path.join(folder, name)
            key = "labs/%s/%s" % (LAB1, os.path.relpath(path, lab_dir).replace(os.sep, "/"))
            check(bundle["lab_files"].get(key) == sha256(path), "lab file %s: %r" % (key, bundle["lab_files"].get(key)))
    check(any(k.startswith("grader/labkit/") for k in bundle["lab_files"]), "the lab kit's files are not hashed")
    # The staged file, hashed and kept.
    reference = os.path.join(root, "reference", LAB1, "matvec.cpp")
    check(bundle["staged_files"] == {"matvec.cpp": sha256(reference)}, "staged files %r" % bundle["staged_files"])
    kept = os.path.join(bundle_dir, "submission", "matvec.cpp")
    check(os.path.isfile(kept) and sha256(kept) == sha256(reference), "the bundle's submission/matvec.cpp is not the staged file")
    tool = bundle["toolchain"]
    actual = subprocess.run([tool["cxx"], "--version"], capture_output=True, text=True).stdout
    check(actual and tool["cxx_version"] == actual, "compiler version %r, `%s --version` says %r" % (tool["cxx_version"], tool["cxx"], actual))
    check(tool["flags"], "no compile flags recorded")
    check(bundle["machine"].get("cpu") and bundle["machine"].get("machine_id", "").startswith("host-"), "machine %r" % bundle["machine"])
    check("calibration" in bundle, "no calibration field")
    check(bundle["report"]["score"] == report["score"] and bundle["report"]["tests"] == report["tests"],
          "the bundle's report is not the report printed")


def check_replay_bundle(e2e, grader, args):
    temp = tempfile.mkdtemp(prefix="e2e-replay-")
    try:
        bundle_dir = os.path.join(temp, "reference.bundle")
        report, bundle = grade_with_bundle(e2e, grader, args.root, bundle_dir, ["--quick"])
        check_bundle_fields(e2e, args.root, report, bundle_dir, bundle)
        e2e.check(bundle["options"]["quick"] is True, "--quick is not recorded: %r" % bundle["options"])
        e2e.check(bundle["samples"] == [], "a --quick grading has samples: %r" % bundle["samples"])
        run = grader.run("replay", bundle_dir, "--verbose")
        e2e.check(run.code == e2e.ALL_PASSED, "replay: exit code %d\n%s" % (run.code, run.stdout))
        e2e.check("no differences" in run.stdout and "DIFFERS" not in run.stdout, "replay output:\n%s" % run.stdout)
        e2e.check("seed %d" % bundle["seed"] in run.stdout, "replay did not use the bundle's seed:\n%s" % run.stdout)
        # Grading again into the same bundle replaces it; a folder that is not a bundle is refused before grading.
        grade_with_bundle(e2e, grader, args.root, bundle_dir, ["--quick"])
        foreign = os.path.join(temp, "foreign")
        os.makedirs(foreign)
        open(os.path.join(foreign, "notes.txt"), "w").close()
        run = grader.run("grade", "lab1", "--quick", "--submission", os.path.join(args.root, "reference", LAB1), "--bundle", foreign)
        e2e.check(run.code == e2e.USAGE and "not a replay bundle" in run.stderr, "--bundle into a foreign folder: exit %d" % run.code)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def check_replay_timed_bundle(e2e, grader, args):
    temp = tempfile.mkdtemp(prefix="e2e-replay-timed-")
    try:
        bundle_dir = os.path.join(temp, "reference.bundle")
        # One timed item (--only) is enough to show its samples in the bundle: lab1's two are timed alike.
        bandwidth_item = "unrolled bandwidth, 10000 x 10000"
        report, bundle = grade_with_bundle(e2e, grader, args.root, bundle_dir, ["--only", bandwidth_item])
        samples = {s["item"]: s for s in bundle["samples"]}
        e2e.check(list(samples) == [bandwidth_item], "samples for %r, expected the one item graded" % sorted(samples))
        for test in report["tests"]:
            if test["kind"] != "performance" or "measurement" not in test:
                continue
            m = test["measurement"]
            got = samples.get(test["name"])
            e2e.check(got is not None, "no samples for %r" % test["name"])
            e2e.check(len(got["candidate"]["seconds"]) == m["candidate"]["reps"] > 0, "%r: %d samples, %d reps" %
                      (test["name"], len(got["candidate"]["seconds"]), m["candidate"]["reps"]))
            e2e.check(len(got["baseline"]["seconds"]) == m["baseline"]["reps"] > 0, "%r: baseline samples" % test["name"])
            low, high = m["metric_interval"]
            e2e.check(0 < low <= high, "%r: metric interval %r" % (test["name"], m["metric_interval"]))
            e2e.check(isinstance(m["within_noise"], bool) and isinstance(m["noise_retries"], int), "%r: noise fields" % test["name"])
        e2e.check(samples, "a timed grading of lab1's reference left no samples in the bundle")
        print("bundle size: %d bytes" % sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(bundle_dir) for f in fs))
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def check_replay_refuses_changed_lab(e2e, grader, args):
    root = lab1_root(e2e, args.root)
    temp = tempfile.mkdtemp(prefix="e2e-replay-refuses-")
    try:
        bundle_dir = os.path.join(temp, "reference.bundle")
        grade_with_bundle(e2e, grader, root, bundle_dir, ["--quick"])
        # Another submission replayed against the bundle: a difference, named, and exit 8.
        wrong = os.path.join(args.submissions, "wrong_answer")
        run = grader.run("replay", bundle_dir, "--submission", wrong, root=root)
        e2e.check(run.code == REPLAY_DIFFERS, "replay of another submission: exit code %d, expected %d" % (run.code, REPLAY_DIFFERS))
        e2e.check("DIFFERS: submitted file matvec.cpp (changed)" in run.stdout, "the changed file is not named:\n%s" % run.stdout)
        e2e.check("wrong_answer" in run.stdout, "the changed verdict is not named:\n%s" % run.stdout)
        # A lab file edited after grading (a comment is enough: the hashes are of the bytes).
        with open(os.path.join(root, "labs", LAB1, "harness.cpp"), "a") as f:
            f.write("\n// edited after grading\n")
        run = grader.run("replay", bundle_dir, root=root)
        e2e.check(run.code == REPLAY_REFUSED, "replay after a lab file changed: exit code %d, expected %d" % (run.code, REPLAY_REFUSED))
        e2e.check("labs/%s/harness.cpp (changed)" % LAB1 in run.stderr, "the changed lab file is not named:\n%s" % run.stderr)
        e2e.check("lab.toml" not in run.stderr, "an unchanged lab file is named:\n%s" % run.stderr)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


SPEEDUP_TIERS = "tiers = [ { at = 1.5, points = 0 }, { at = 1.8, points = 20 } ]"
DENSE = [(round(0.30 + 0.01 * i, 2), round(20.0 * i / 570, 6)) for i in range(571)]  # 0.30x .. 6.00x, linear


def tier_points(tiers, value):
    if value < tiers[0][0]:
        return 0.0
    for (low_at, low_points), (high_at, high_points) in zip(tiers, tiers[1:]):
        if value < high_at:
            return low_points + (value - low_at) / (high_at - low_at) * (high_points - low_points)
    return tiers[-1][1]


def check_noise_retry(e2e, grader, args):
    root = lab1_root(e2e, args.root)
    temp = tempfile.mkdtemp(prefix="e2e-noise-retry-")
    try:
        toml = os.path.join(root, "labs", LAB1, "lab.toml")
        with open(toml) as f:
            text = f.read()
        e2e.check(text.count(SPEEDUP_TIERS) == 1 and "target_noise = 0.03\n" in text, "lab1's lab.toml changed; update this check")
        dense = "tiers = [ %s ]" % ", ".join("{ at = %.2f, points = %s }" % tier for tier in DENSE)
        text = text.replace(SPEEDUP_TIERS, dense).replace("target_noise = 0.03\n", "target_noise = 0.03\nnoise_retry_seconds = 0.5\n", 1)
        with open(toml, "w") as f:
            f.write(text)
        bundle_dir = os.path.join(temp, "b")
        # The speedup item alone (--only): the bandwidth item would add a second timed measurement, checked nowhere.
        speedup_item = "unrolled speedup over row pointers, 10000 x 10000"
        report, bundle = grade_with_bundle(e2e, grader, root, bundle_dir, ["--only", speedup_item])
        item = e2e.tests_by_name(report)[speedup_item]
        e2e.check("measurement" in item, "the speedup item was not timed: %s" % item["details"])
        m = item["measurement"]
        low, high = m["metric_interval"]
        print("speedup %.3f, interval [%.3f, %.3f], measured again %d time(s), %s points" %
              (m["metric_value"], low, high, m["noise_retries"], item["score"]))
        e2e.check(m["noise_retries"] == 1, "measured again %d times with a 0.5 s budget, expected once" % m["noise_retries"])
        e2e.check(m["within_noise"] is True and m["noise_rule"], "not flagged within noise: %r" % m)
        e2e.check("within noise" in item["details"], "the details do not say within noise: %s" % item["details"])
        # The upper end, reaching at most twice the lab's target_noise (0.03) above the median (score/score.h).
        reach = min(high, m["metric_value"] * (1 + 2 * 0.03))
        rule = max(tier_points(DENSE, m["metric_value"]), tier_points(DENSE, reach))
        e2e.check(abs(item["score"] - rule) < 1e-6,
                  "%s points; the rule gives %s (the upper end %.4f, reached %.4f)" % (item["score"], rule, high, reach))
        e2e.check(item["score"] >= tier_points(DENSE, m["metric_value"]) - 1e-9, "fewer points than the median earns")
        samples = {s["item"]: s for s in bundle["samples"]}[item["name"]]
        e2e.check(len(samples["candidate"]["seconds"]) == m["candidate"]["reps"] == len(samples["baseline"]["seconds"]),
                  "pooled samples: %d candidate, %d baseline, %d reps" % (len(samples["candidate"]["seconds"]),
                                                                        len(samples["baseline"]["seconds"]), m["candidate"]["reps"]))
    finally:
        shutil.rmtree(temp, ignore_errors=True)
        shutil.rmtree(root, ignore_errors=True)


def checks(e2e):
    def bound(function):
        return lambda grader, args: function(e2e, grader, args)
    return {
        "replay-bundle": bound(check_replay_bundle),
        "replay-timed-bundle": bound(check_replay_timed_bundle),
        "replay-refuses-changed-lab": bound(check_replay_refuses_changed_lab),
        "noise-retry": bound(check_noise_retry),
    }
