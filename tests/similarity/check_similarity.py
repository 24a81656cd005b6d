#!/usr/bin/env python3
"""`grader similarity` end to end on a made-up class (issue 36). Standard library only.

  check_similarity.py --grader G --root R --work W class LAB
      a class of one lab: the reference (a folder), a planted copy of it (a zip: identifiers renamed, functions
      reordered, comments and layout changed, a dead function added), honest solutions (the reference, the lab's
      bench/mid_tier submission where there is one, one written for these tests), and two students who submit the
      skeleton unchanged (a folder and a tar.gz). Checks: the planted pair is the only one at or above the threshold,
      the two skeletons are not flagged, the CSV and the pages agree, a reviewed mark survives a rerun, and with the
      reference among past submissions the copy is still found while past submissions are not paired together.
  check_similarity.py ... browser LAB
      the planted pair's page in headless Chromium: both sides have marked regions, every region's link lands on its
      other half, starter lines are greyed, and the page asks for nothing. Exit 77 without Chromium.
  check_similarity.py ... batch LAB
      `grader batch --quick --similarity`: the class dashboard links the similarity report.

Prints the planted pair's score and the highest honest pair's score (the figures of the issue's closing note).
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

SKIPPED = 77
HERE = os.path.dirname(os.path.abspath(__file__))
THRESHOLD = 50  # the command's default, in percent


def lab_folder(root, lab):
    for name in sorted(os.listdir(os.path.join(root, "labs"))):
        if name == lab or name.startswith(lab + "-"):
            return name
    sys.exit("no lab %s under %s/labs" % (lab, root))


class Class:
    """The submissions folder, one entry per student; `honest` names the students who wrote their own code."""

    def __init__(self, root, lab, folder):
        self.root, self.lab, self.folder = root, lab_folder(root, lab), folder
        self.student_file = sorted(os.listdir(os.path.join(root, "skeletons", self.lab)))[0]
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        self.honest = []

    def source(self, *parts):
        return os.path.join(self.root, *parts)

    def add(self, student, source, kind="folder", honest=True):
        text = open(source, "rb").read()
        if kind == "folder":
            os.makedirs(os.path.join(self.folder, student))
            with open(os.path.join(self.folder, student, self.student_file), "wb") as out:
                out.write(text)
        elif kind == "zip":  # wrapped in a folder, as platforms and students do
            with zipfile.ZipFile(os.path.join(self.folder, student + ".zip"), "w") as archive:
                archive.writestr(self.lab + "/" + self.student_file, text)
        else:
            staging = os.path.join(self.folder, "." + student)
            os.makedirs(staging)
            with open(os.path.join(staging, self.student_file), "wb") as out:
                out.write(text)
            with tarfile.open(os.path.join(self.folder, student + ".tar.gz"), "w:gz") as archive:
                archive.add(os.path.join(staging, self.student_file), arcname=self.student_file)
            shutil.rmtree(staging)
        if honest:
            self.honest.append(student)


def make_class(root, lab, folder):
    c = Class(root, lab, folder)
    c.add("alice", c.source("reference", c.lab, c.student_file))
    c.add("bob", os.path.join(HERE, c.lab, [f for f in os.listdir(os.path.join(HERE, c.lab)) if f.startswith("planted_copy")][0]),
          "zip", honest=False)
    mid_tier = c.source("bench", "mid_tier", c.lab, c.student_file)
    if os.path.exists(mid_tier):
        c.add("carol", mid_tier, "tar.gz")
    for name in sorted(os.listdir(os.path.join(HERE, c.lab))):
        if name.startswith("honest_"):
            c.add("dave_" + os.path.splitext(name)[0][len("honest_"):], os.path.join(HERE, c.lab, name))
    c.add("erin", c.source("skeletons", c.lab, c.student_file))
    c.add("frank", c.source("skeletons", c.lab, c.student_file), "tar.gz")
    return c


def run(grader, root, *args, expect=0):
    result = subprocess.run([grader, "--root", root, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print("$ grader " + " ".join(args) + "\n" + result.stdout)
    if result.returncode != expect:
        sys.exit("exit %d, expected %d" % (result.returncode, expect))
    return result.stdout


def read_pairs(out):
    with open(os.path.join(out, "similarity.csv"), newline="", encoding="utf-8") as f:
        return {frozenset((row["student_a"], row["student_b"])): row for row in csv.DictReader(f)}


class Checks:
    def __init__(self):
        self.failures = 0

    def check(self, ok, what):
        print(("ok      " if ok else "FAILED  ") + what)
        self.failures += 0 if ok else 1


def check_cuda_tokens(args, checks):
    """The engine's own token stream of a CUDA kernel and its launch: nothing dropped, nothing it cannot read."""
    source = os.path.join(args.work, "kernel.cu")
    with open(source, "w") as out:
        out.write("__global__ void k(const float* a, float* y, int n) {\n  __shared__ float tile[256];\n"
                  "  tile[threadIdx.x] = a[blockIdx.x * blockDim.x + threadIdx.x];\n  __syncthreads();\n"
                  "  y[0] = tile[0];\n}\nvoid launch(const float* a, float* y, int n) {\n"
                  "  k<<<(n + 255) / 256, 256, 0, stream>>>(a, y, n);\n}\n")
    stream = subprocess.run(["sim_c++", "--", source], stdout=subprocess.PIPE, text=True).stdout
    tokens = [tuple(w.strip() for w in line.split(" -> ")) for line in stream.splitlines()
              if line.startswith(" ") and " -> " in line]
    words = [word for word, _ in tokens]
    checks.check(("__global__", "IDF") in tokens and ("__shared__", "IDF") in tokens,
                 "CUDA's qualifiers are tokens (identifiers to the engine)")
    launch = words.index("k", words.index("launch")) if "launch" in words else -1
    checks.check(launch >= 0 and words[launch + 1:launch + 4] == ["<", "<", "<"] and ">" in words[launch + 4:],
                 "a kernel launch's <<< >>> is kept as tokens: %s" % words[launch:launch + 6])
    checks.check(len(tokens) > 60, "the whole kernel is tokenised (%d tokens)" % len(tokens))


def check_class(args, checks):
    c = make_class(args.root, args.lab, os.path.join(args.work, "submissions"))
    if c.student_file.endswith(".cu"):
        check_cuda_tokens(args, checks)
    out = os.path.join(args.work, "out")
    shutil.rmtree(out, ignore_errors=True)
    run(args.grader, args.root, "similarity", args.lab, c.folder, "--out", out)
    pairs = read_pairs(out)
    planted = pairs.get(frozenset(("alice", "bob")))
    checks.check(planted is not None and float(planted["score_percent"]) >= THRESHOLD,
                 "the planted copy (alice & bob) is at or above %d%%: %s" % (THRESHOLD, planted and planted["score_percent"]))
    checks.check(planted is not None and planted["above_threshold"] == "yes" and
                 os.path.exists(os.path.join(out, planted["page"])), "the planted pair has its page: %s" % (planted and planted["page"]))
    honest = {k: v for k, v in pairs.items() if k != frozenset(("alice", "bob"))}
    highest = max(honest.items(), key=lambda kv: float(kv[1]["score_percent"]), default=None)
    for key, row in honest.items():
        checks.check(float(row["score_percent"]) < THRESHOLD and row["above_threshold"] == "no",
                     "honest pair %s stays below %d%%: %s" % (" & ".join(sorted(key)), THRESHOLD, row["score_percent"]))
    skeletons = pairs.get(frozenset(("erin", "frank")))
    checks.check(skeletons is None or float(skeletons["score_percent"]) == 0,
                 "two unchanged skeletons are not flagged (erin & frank: %s)" % (skeletons and skeletons["score_percent"]))
    index = open(os.path.join(out, "similarity.html"), encoding="utf-8").read()
    checks.check(index.count('<tr data-a="') == 1 and "pair-" in index, "similarity.html lists the one flagged pair")
    pages = os.listdir(os.path.join(out, "similarity"))
    checks.check(pages == [os.path.basename(planted["page"])] if planted else False, "one page, the flagged pair's: %s" % pages)

    # A reviewed mark, then a plain rerun: the mark stays, in the CSV and on the page.
    run(args.grader, args.root, "similarity", args.lab, c.folder, "--out", out, "--mark-reviewed", "bob,alice",
        "--note", "=cmd| asked, explained")
    run(args.grader, args.root, "similarity", args.lab, c.folder, "--out", out)
    row = read_pairs(out)[frozenset(("alice", "bob"))]
    checks.check(row["reviewed"] == "yes" and row["note"] == "'=cmd| asked, explained",
                 "a rerun keeps the reviewed mark, its note escaped like grades.csv's cells: %r" % row["note"])
    checks.check("reviewed" in open(os.path.join(out, row["page"]), encoding="utf-8").read(), "the pair's page says reviewed")
    run(args.grader, args.root, "similarity", args.lab, c.folder, "--out", out, "--mark-reviewed", "alice,nobody", expect=2)

    # Past submissions: the reference and a copy of it last year. Each student is compared with them; they are not
    # compared with each other (their identical pair must not appear).
    past = os.path.join(args.work, "past")
    shutil.rmtree(past, ignore_errors=True)
    os.makedirs(past)
    for name in ("old_alice", "old_alice_again"):
        os.makedirs(os.path.join(past, name))
        shutil.copy(c.source("reference", c.lab, c.student_file), os.path.join(past, name, c.student_file))
    shutil.rmtree(os.path.join(c.folder, "alice"))
    c.honest.remove("alice")
    out_past = os.path.join(args.work, "out-past")
    shutil.rmtree(out_past, ignore_errors=True)
    run(args.grader, args.root, "similarity", args.lab, c.folder, "--out", out_past, "--past", past)
    pairs = read_pairs(out_past)
    found = pairs.get(frozenset(("bob", "old_alice")))
    checks.check(found is not None and found["above_threshold"] == "yes" and found["b_is_past"] == "yes",
                 "the copy of a past submission is found: %s" % (found and found["score_percent"]))
    checks.check(frozenset(("old_alice", "old_alice_again")) not in pairs, "past submissions are not compared with each other")
    highest_score = highest[1]["score_percent"] if highest else "0"
    print("FIGURES %s: planted copy %s%%, highest honest pair %s%% (%s)" %
          (c.lab, planted and planted["score_percent"], highest_score, highest and " & ".join(sorted(highest[0]))))


def check_browser(args, checks):
    sys.path.insert(0, os.path.join(args.root, "tests", "browser"))
    import check_report  # the Browser class: Chromium over its DevTools pipe
    import tempfile
    binary = next((shutil.which(b) for b in check_report.BROWSERS if shutil.which(b)), None)
    if binary is None:
        print("skipped: no headless Chromium (apt-get install chromium-headless-shell; grader/setup.sh installs it)")
        return SKIPPED
    c = make_class(args.root, args.lab, os.path.join(args.work, "submissions"))
    out = os.path.join(args.work, "out")
    shutil.rmtree(out, ignore_errors=True)
    run(args.grader, args.root, "similarity", args.lab, c.folder, "--out", out)
    page = os.path.join(out, read_pairs(out)[frozenset(("alice", "bob"))]["page"])
    with tempfile.TemporaryDirectory(prefix="grader-browser-") as profile:
        browser = check_report.Browser(binary, profile)
        try:
            browser.load(page, 1400, 900)
            browser.screenshot(os.path.join(args.work, "pair.png"), full_page=False)
            facts = browser.evaluate(r"""(() => {
              const side = s => [...document.querySelectorAll('[data-side="' + s + '"] mark.region')];
              const a = side('a'), b = side('b');
              const links = [...document.querySelectorAll('mark.region a.jump')].map(l => l.getAttribute('href'));
              const visible = m => { const r = m.getBoundingClientRect(); return r.width > 100 && r.height > 10; };
              const colour = m => getComputedStyle(m).backgroundColor;
              const starter = document.querySelector('.line.starter');
              return {a: a.length, b: b.length, aVisible: a.filter(visible).length, bVisible: b.filter(visible).length,
                      marked: a.concat(b).every(m => colour(m) !== 'rgba(0, 0, 0, 0)'),
                      links: links.length, dangling: links.filter(h => !document.getElementById(h.slice(1))),
                      starterGrey: starter ? getComputedStyle(starter).color : null,
                      title: document.title};
            })()""")
            print(facts)
            checks.check(facts["a"] > 0 and facts["b"] > 0, "both sides have marked regions (%d, %d)" % (facts["a"], facts["b"]))
            checks.check(facts["aVisible"] == facts["a"] and facts["bVisible"] == facts["b"] and facts["marked"],
                         "every marked region is drawn, with a background")
            checks.check(facts["links"] == facts["a"] + facts["b"] and not facts["dangling"],
                         "every region links to its other half: %d links, dangling %s" % (facts["links"], facts["dangling"]))
            # Following a link scrolls its other half into view.
            first = browser.evaluate("document.querySelector('[data-side=a] mark.region a.jump').getAttribute('href')")
            browser.evaluate("document.querySelector('[data-side=a] mark.region a.jump').click(), 0")
            top = browser.evaluate("document.getElementById('%s').getBoundingClientRect().top" % first[1:])
            checks.check(0 <= top < 900, "following match link %s brings its other half into view (top %s)" % (first, top))
            checks.check(facts["starterGrey"] is not None, "starter lines are shown, greyed: %s" % facts["starterGrey"])
            requests = [u for u in browser.requests() if not u.startswith("file://" + os.path.abspath(page))]
            checks.check(not requests, "the page asks for nothing else: %s" % requests)
            width = browser.evaluate("document.documentElement.scrollWidth")
            checks.check(width <= 1400, "the two sides fit the window side by side (page %spx wide)" % width)
        finally:
            browser.close()


def check_batch(args, checks):
    c = make_class(args.root, args.lab, os.path.join(args.work, "submissions"))
    out = os.path.join(args.work, "out")
    shutil.rmtree(out, ignore_errors=True)
    run(args.grader, args.root, "batch", args.lab, c.folder, "--out", out, "--quick", "--similarity", "--no-bundles")
    dashboard = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    checks.check('href="similarity.html"' in dashboard, "the class dashboard links similarity.html")
    checks.check(frozenset(("alice", "bob")) in read_pairs(out), "the batch's similarity.csv has the planted pair")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("check", choices=["class", "browser", "batch"])
    parser.add_argument("lab")
    args = parser.parse_args()
    if not shutil.which("sim_c++"):
        print("skipped: the similarity engine sim_c++ is not installed (apt-get install similarity-tester; "
              "grader/setup.sh installs it)")
        return SKIPPED
    os.makedirs(args.work, exist_ok=True)
    checks = Checks()
    code = {"class": check_class, "browser": check_browser, "batch": check_batch}[args.check](args, checks)
    if code == SKIPPED:
        return SKIPPED
    print("%d check(s) failed" % checks.failures if checks.failures else "all checks passed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
