#!/usr/bin/env python3
"""Loads the grader's HTML reports in headless Chromium and checks what a reader sees (issue 12).

Standard library only: Chromium is driven through its DevTools protocol over a pipe (--remote-debugging-pipe:
JSON messages ending in a NUL byte, commands on fd 3, replies on fd 4).

  check_report.py --grader build/bin/grader --root . --out build/browser student
      grades lab1's reference as HTML (the page carries its report's JSON), then in the page: every item of the
      JSON appears, every roofline mark sits where the JSON's figures put it (within a pixel), the page made no
      request but its own file, and a screenshot is saved (laptop and phone widths); each timed item's "what your
      code does" panel holds the JSON's facts, its hot loop folded under the submission's own source lines with the
      floating-point instructions marked, and the grader's counters (or why there are none).
  check_report.py ... dashboard
      a timed batch of three lab1 students; the same checks on the class dashboard (report.html in --out, a mark
      per student per kernel) and on a student's page against the JSON stored beside it.

Exits 77, saying why, where no Chromium is installed (CTest shows the test as skipped, never passed).
"""
import argparse
import base64
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIPPED = 77
BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")


class Browser:
    """One headless Chromium, one page, commands over the DevTools pipe."""

    def __init__(self, binary, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        os.set_inheritable(to_browser_r, True)
        os.set_inheritable(from_browser_w, True)

        def wire_fds():
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        args = [binary, "--headless", "--remote-debugging-pipe", "--disable-gpu", "--no-first-run",
                "--disable-extensions", "--disable-background-networking", "--user-data-dir=" + profile,
                "--hide-scrollbars"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium refuses to start its sandbox as root (CI containers)
        self.process = subprocess.Popen(args, preexec_fn=wire_fds, pass_fds=(3, 4, to_browser_r, from_browser_w),
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            if time.time() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=False, timeout=30):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method, timeout=30):
        deadline = time.time() + timeout
        while True:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events.append(self._read_message(deadline))

    def load(self, path, width, height):
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}, session=True)
        self.call("Network.enable", session=True)
        self.call("Page.enable", session=True)
        self.events.clear()
        self.call("Page.navigate", {"url": "file://" + os.path.abspath(path)}, session=True)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        if "exceptionDetails" in result:
            raise RuntimeError("page script failed: %s" % result["exceptionDetails"])
        return result["result"].get("value")

    def requests(self):
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, path, full_page=True):
        params = {"format": "png", "captureBeyondViewport": full_page}
        data = self.call("Page.captureScreenshot", params, session=True, timeout=60)["data"]
        with open(path, "wb") as out:
            out.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


# What the page says about itself: item names, every roofline mark's rendered centre, the plot area's rendered box
# and the axes' decades, and every address an element would load.
PAGE_FACTS = r"""(() => {
  const svg = document.querySelector('svg.roofline');
  const box = r => ({left: r.left, top: r.top, width: r.width, height: r.height});
  const facts = {items: [...document.querySelectorAll('[data-item]')].map(e => e.getAttribute('data-item')),
                 title: document.title, total: (document.getElementById('total') || {}).textContent,
                 loads: [], marks: [], plot: null, axes: null};
  // A link loads nothing until followed (the dashboard links each student's page); anything else with an address would.
  for (const e of document.querySelectorAll('[src],[href]:not(a),[srcset],[poster],[data]'))
    for (const a of ['src', 'href', 'srcset', 'poster', 'data']) if (e.hasAttribute(a)) facts.loads.push(e.getAttribute(a));
  for (const s of document.querySelectorAll('style')) if (/url\(|@import/.test(s.textContent)) facts.loads.push('css: ' + s.textContent.match(/url\([^)]*\)|@import[^;]*/)[0]);
  // The labels that must not overlap: each ladder's tier labels, the roofline's ceiling labels (issue 31).
  facts.label_groups = [...document.querySelectorAll('svg')].map(s =>
      [...s.querySelectorAll('text.tier-label, text.ceiling-label')].map(t => ({text: t.textContent, ...box(t.getBoundingClientRect())})))
      .filter(g => g.length > 1);
  if (svg) {
    facts.axes = ['x-min', 'x-max', 'y-min', 'y-max'].map(k => parseFloat(svg.getAttribute('data-log-' + k)));
    facts.plot = box(svg.querySelector('rect.plot-area').getBoundingClientRect());
    for (const c of svg.querySelectorAll('circle.pt')) {
      const r = c.getBoundingClientRect();
      facts.marks.push({item: c.getAttribute('data-item'), series: c.getAttribute('data-series'),
                        x: r.left + r.width / 2, y: r.top + r.height / 2});
    }
  }
  return facts;
})()"""


def expected_position(facts, gflops, gbps):
    x_min, x_max, y_min, y_max = facts["axes"]
    plot = facts["plot"]
    x = plot["left"] + (math.log10(gflops / gbps) - x_min) / (x_max - x_min) * plot["width"]
    y = plot["top"] + plot["height"] - (math.log10(gflops) - y_min) / (y_max - y_min) * plot["height"]
    return x, y


class Checks:
    def __init__(self):
        self.failures = []

    def check(self, ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            self.failures.append(what)


def check_page(browser, checks, html_path, expected_marks, expected_items, shot_prefix):
    """expected_marks: [(item, series, gflops, gbps)] from the JSON; expected_items: names that must appear."""
    browser.load(html_path, 1280, 900)
    facts = browser.evaluate(PAGE_FACTS)
    for name in expected_items:
        checks.check(name in facts["items"], "item appears: %s" % name)
    checks.check(facts["plot"] is not None, "the page has a roofline plot")
    if facts["plot"] is not None:
        for item, series, gflops, gbps in expected_marks:
            want_x, want_y = expected_position(facts, gflops, gbps)
            found = [m for m in facts["marks"] if m["item"] == item and m["series"] == series]
            best = min((math.hypot(m["x"] - want_x, m["y"] - want_y) for m in found), default=float("inf"))
            checks.check(best <= 1.0, "%s mark of '%s' within a pixel of its figures (off by %.2f px)" % (series, item, best))
        checks.check(len(facts["marks"]) == len(expected_marks),
                     "%d marks drawn, %d expected from the JSON" % (len(facts["marks"]), len(expected_marks)))
    overlaps = []
    for group in facts["label_groups"]:
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if (a["left"] < b["left"] + b["width"] and b["left"] < a["left"] + a["width"] and
                        a["top"] < b["top"] + b["height"] and b["top"] < a["top"] + a["height"]):
                    overlaps.append("'%s' and '%s'" % (a["text"], b["text"]))
    checks.check(not overlaps, "at 1280 px no tier or ceiling label overlaps another (%d groups; overlapping: %s)" % (
        len(facts["label_groups"]), ", ".join(overlaps) or "none"))
    own = "file://" + os.path.abspath(html_path)
    external = [u for u in browser.requests() if u != own]
    checks.check(not external, "no request but the page itself (saw: %s)" % (external or "none"))
    checks.check(not facts["loads"], "no element loads anything (saw: %s)" % (facts["loads"] or "none"))
    browser.screenshot(shot_prefix + "-laptop.png")
    # Printed, the folded sections (build log, failing cases) unfold: a printout holds everything the page does.
    browser.call("Emulation.setEmulatedMedia", {"media": "print"}, session=True)
    shown = "[...document.querySelectorAll('details > :not(summary)')].map(e => e.checkVisibility())"
    printed = browser.evaluate(shown)
    browser.call("Emulation.setEmulatedMedia", {"media": ""}, session=True)
    on_screen = browser.evaluate(shown)
    checks.check(bool(printed) and all(printed), "printed, every folded section is shown (%d sections)" % len(printed))
    checks.check(not any(on_screen), "on screen, the folded sections are folded")
    browser.load(html_path, 390, 844)
    browser.screenshot(shot_prefix + "-phone.png", full_page=False)
    width = browser.evaluate("document.documentElement.scrollWidth")
    checks.check(width <= 390, "on a phone's width (390 px) the page does not scroll sideways (%s px)" % width)
    print("screenshots: %s-laptop.png, %s-phone.png" % (shot_prefix, shot_prefix))


# The "what your code does" panels (issue 33): each item's facts table, its folded hot loop under the source lines,
# and the counters the grader read.
PANEL_FACTS = r"""(() => [...document.querySelectorAll('[data-item]')].map(item => {
  const look = item.querySelector('.look'), counters = item.querySelector('.counters');
  const source = look && look.querySelector('.source');
  const folder = source && source.closest('details');
  const panel = {item: item.getAttribute('data-item'), heading: look ? look.querySelector('h3').textContent : null,
                 facts: look ? [...look.querySelectorAll('tr[data-fact]')].map(r => r.getAttribute('data-fact')) : [],
                 lines: source ? [...source.querySelectorAll('.src')].map(s => [...s.childNodes].filter(n => n.nodeType === 3).map(n => n.textContent).join('')) : [],
                 instructions: source ? source.querySelectorAll('.asm').length : 0,
                 fp: source ? source.querySelectorAll('.asm.fp').length : 0,
                 folded: folder ? !folder.open : null, shown_when_opened: null,
                 counter_rows: counters ? [...counters.querySelectorAll('tr[data-counter]')].map(r => r.getAttribute('data-counter')) : null,
                 counters_in_look: counters ? counters.closest('.look') === look : null,
                 counters_missing: counters && counters.querySelector('.counters-missing') ? counters.querySelector('.counters-missing').textContent : null};
  if (folder) {
    folder.open = true;
    const first = source.querySelector('.src');
    panel.shown_when_opened = first.checkVisibility() && first.getBoundingClientRect().height > 0;
    folder.open = false;
  }
  return panel;
}))()"""


def check_panels(browser, checks, report, source_path):
    """The look panels of a lab1 page against its JSON: facts, the listing beside the student's own lines, counters."""
    with open(source_path, encoding="utf-8") as f:
        written = [line.rstrip("\n") for line in f]
    panels = {p["item"]: p for p in browser.evaluate(PANEL_FACTS)}
    timed = [t for t in report["tests"] if t["kind"] == "performance" and t.get("look")]
    checks.check(bool(timed), "the JSON has timed items with a 'what your code does' block (%d)" % len(timed))
    for test in timed:
        panel = panels.get(test["name"], {})
        name = test["name"]
        checks.check((panel.get("heading") or "").startswith("What your code does"), "'%s': the panel is there" % name)
        shown = [row["key"] for row in test["look"]["facts"]
                 if row.get("yours_value") or row.get("reference_value")]
        checks.check(panel.get("facts") == shown, "'%s': its facts table has the JSON's rows (%s)" % (name, panel.get("facts")))
        listing = test["look"].get("source_listing", [])
        if listing:
            lines = [line for line in panel.get("lines", []) if line.strip()]
            checks.check(bool(lines) and all(line in written for line in lines),
                         "'%s': the listing shows the submission's own lines (%d of them)" % (name, len(lines)))
            checks.check(panel.get("instructions", 0) == sum(len(l["instructions"]) for l in listing),
                         "'%s': every instruction of the JSON's listing is under a line (%d)" % (name, panel.get("instructions", 0)))
            checks.check(panel.get("fp", 0) >= 1, "'%s': its floating-point instructions are marked (%d)" % (name, panel.get("fp", 0)))
            checks.check(panel.get("folded") is True and panel.get("shown_when_opened") is True,
                         "'%s': the listing is folded, and shown when opened" % name)
        else:
            checks.check(False, "'%s': the JSON has no source listing (line tables missing?)" % name)
        counters = (test.get("measurement") or {}).get("cpu_counters")
        if counters is not None:
            rows = [row["key"] for row in counters["rows"]]
            checks.check(panel.get("counter_rows") == rows, "'%s': the counters table has the JSON's rows (%s)" % (name, rows))
            checks.check(panel.get("counters_in_look") is True, "'%s': the counters are in the one look block" % name)
            if counters["unavailable"]:
                checks.check(counters["unavailable"] in (panel.get("counters_missing") or ""),
                             "'%s': why counters are missing is shown: %s" % (name, counters["unavailable"]))


def student_marks(report, reference):
    """The marks the student's JSON (and the selftest's record, when present) say the roofline holds."""
    marks = []
    ref_items = {i["name"]: i for i in (reference or {}).get("items", [])}
    for test in report["tests"]:
        m = test.get("measurement")
        if test["kind"] != "performance" or not m:
            continue
        c, b = m["candidate"], m["baseline"]
        if c["gflops"] <= 0 or c["gbps"] <= 0:
            continue
        marks.append((test["name"], "candidate", c["gflops"], c["gbps"]))
        if b["gflops"] > 0 and b["gbps"] > 0:
            marks.append((test["name"], "baseline", b["gflops"], b["gbps"]))
        r = ref_items.get(test["name"])
        if r and r["gflops"] > 0 and r["gbps"] > 0:
            marks.append((test["name"], "reference", r["gflops"], r["gbps"]))
    return marks


def run(cmd, **kwargs):
    print("$ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, **kwargs)


def load_reference(args):
    """lab1's reference figures as `grader selftest` recorded them in the cache, or None where it has not run."""
    folder = os.path.join(args.cache, "reference") if args.cache else None
    if not folder or not os.path.isdir(folder):
        return None
    for name in os.listdir(folder):
        if name.endswith("-lab1-matvec.json"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                return json.load(f)
    return None


def student(args, browser, checks):
    html_path = os.path.join(args.out, "lab1-report.html")
    json_path = os.path.join(args.out, "lab1-report.json")
    # The reference, staged under a folder name with no break in it: the page names the submission's path, and at a
    # phone's width a long path must wrap, not widen the page (stop 29's CI, whose checkout sat six characters
    # deeper than the machine the page was tried on, found that it did not).
    staged = tempfile.mkdtemp(prefix="grader-browser-student-")
    submission = os.path.join(staged, "a_student_folder_named_without_a_single_break_in_it_" + "x" * 24)
    shutil.copytree(os.path.join(args.root, "reference", "lab1-matvec"), submission)
    # One grading, both files: the HTML carries the report's JSON, and the test compares the plot with it.
    try:
        result = run([args.grader, "lab1", "--submission", submission, "--format", "html", "-o", html_path])
    finally:
        shutil.rmtree(staged, ignore_errors=True)
    checks.check(result.returncode in (0, 1), "grader lab1 --format html exits 0 or 1 (got %d)" % result.returncode)
    with open(html_path, encoding="utf-8") as page:
        text = page.read()
    start = text.index('<script type="application/json" id="grader-report">') + len('<script type="application/json" id="grader-report">')
    report = json.loads(text[start:text.index("</script>", start)])
    with open(json_path, "w", encoding="utf-8") as out:
        json.dump(report, out, indent=2)
    reference = load_reference(args)
    marks = student_marks(report, reference)
    checks.check(len(marks) >= 2, "the JSON holds timed kernels to plot (%d marks)" % len(marks))
    check_page(browser, checks, html_path, marks, [t["name"] for t in report["tests"]], os.path.join(args.out, "lab1-report"))
    browser.load(html_path, 1280, 900)
    check_panels(browser, checks, report, os.path.join(args.root, "reference", "lab1-matvec", "matvec.cpp"))


def written_by_this_grader(out, grader):
    """Whether the batch output folder `out` was written by this build of the grader (not left by an older one)."""
    grades = os.path.join(out, "grades.csv")
    return os.path.isfile(grades) and os.path.getmtime(grades) >= os.path.getmtime(grader)


def dashboard(args, browser, checks):
    """A timed batch of three lab1 students, one fast, one slow and one failing (tests/batch/variants): the class
    dashboard and the fast student's page beside their JSON. batch.full grades such a class; where its output is
    there (--class-out), written by this grader, it is read, not graded again (70 s of CI); else a class of fast,
    slow and wrong is graded here."""
    if args.class_out and written_by_this_grader(args.class_out, args.grader):
        out = args.class_out
        print("the class graded by batch.full: %s" % out)
    else:
        variants = os.path.join(args.root, "tests", "batch", "variants")
        with tempfile.TemporaryDirectory(prefix="grader-browser-class-") as work:
            for variant in ("fast", "slow", "wrong"):
                os.makedirs(os.path.join(work, "class", variant))
                shutil.copy(os.path.join(variants, variant + ".cpp"), os.path.join(work, "class", variant, "matvec.cpp"))
            out = os.path.join(args.out, "class")
            shutil.rmtree(out, ignore_errors=True)
            result = run([args.grader, "batch", "lab1", os.path.join(work, "class"), "--out", out])
        checks.check(result.returncode in (0, 1), "grader batch exits 0 or 1 (got %d)" % result.returncode)
    reports = []
    for name in sorted(os.listdir(out)):
        if name.endswith(".json") and not name.startswith("."):
            with open(os.path.join(out, name), encoding="utf-8") as f:
                reports.append(json.load(f))
            checks.check(os.path.exists(os.path.join(out, name[:-5] + ".html")), "a student's page beside %s" % name)
    checks.check(len(reports) == 3, "three students' reports stored (%d)" % len(reports))
    reference = load_reference(args)
    marks = []
    for report in reports:
        for test in report["tests"]:
            m = test.get("measurement")
            if m and m["candidate"]["gflops"] > 0 and m["candidate"]["gbps"] > 0:
                marks.append((test["name"], "student", m["candidate"]["gflops"], m["candidate"]["gbps"]))
    for item in (reference or {}).get("items", []):
        if item["gflops"] > 0 and item["gbps"] > 0:
            marks.append((item["name"], "reference", item["gflops"], item["gbps"]))
    checks.check(len(marks) >= 4, "the class's JSON holds timed kernels to plot (%d marks)" % len(marks))
    items = sorted({t["name"] for r in reports for t in r["tests"]})
    check_page(browser, checks, os.path.join(out, "report.html"), marks, items, os.path.join(args.out, "dashboard"))
    # A student's page against the JSON stored beside it (the batch wrote both from one grading).
    fast = next(r for r in reports if r["batch"]["student"] == "fast")
    check_page(browser, checks, os.path.join(out, "fast.html"), student_marks(fast, reference),
               [t["name"] for t in fast["tests"]], os.path.join(args.out, "class-student"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--grader", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--out", required=True, help="where the reports and screenshots are left (artifacts)")
    parser.add_argument("--cache", help="the grader's cache, for the reference's recorded figures")
    parser.add_argument("--class-out", help="batch.full's output folder: the dashboard check reads it where it is there")
    parser.add_argument("check", choices=["student", "dashboard"])
    args = parser.parse_args()
    binary = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if binary is None:
        print("skipped: no headless Chromium (apt-get install chromium-headless-shell; grader/setup.sh installs it)")
        return SKIPPED
    os.makedirs(args.out, exist_ok=True)
    checks = Checks()
    with tempfile.TemporaryDirectory(prefix="grader-browser-") as profile:
        browser = Browser(binary, profile)
        try:
            {"student": student, "dashboard": dashboard}[args.check](args, browser, checks)
        finally:
            browser.close()
    print("%d check(s) failed" % len(checks.failures) if checks.failures else "all checks passed")
    return 1 if checks.failures else 0


if __name__ == "__main__":
    sys.exit(main())
