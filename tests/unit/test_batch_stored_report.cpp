// test_batch_stored_report.cpp: a stored report read back (grader/src/batch/stored_report.h) gives the writers what
// the grading itself gave them: `--gradescope` added to a folder graded before writes every earlier student's
// results.json from their <id>.json, and it must be the file the grading would have written.
#include <doctest/doctest.h>

#include "batch/stored_report.h"
#include "report/writers.h"

using namespace grader;
using json = nlohmann::json;

namespace {

Report sample() {
  Report r;
  r.lab = "lab1";
  r.lab_name = "lab1-matvec";
  r.title = "CPU matrix-vector multiply";
  r.submission = "/class/zoe";
  r.seed = (std::uint64_t{1} << 52) + 12345;
  r.score = 50.5;
  r.max_score = 80;
  r.build_log = "src/matvec.cpp:3:1: warning: <unused>\n";
  r.warnings = {"other programs used the CPU while this grading timed"};
  r.wall_seconds = 41.7;
  r.stage_seconds = {{"build (submission)", 1.5}, {"timing", 30.25}};
  TestResult rows{"row pointers", TestKind::correctness, Verdict::passed, 10, 10, "4 runs passed", Visibility::visible, {}, {}, {}};
  rows.cases = {{"square 100", "rowptr", Verdict::passed, "max abs error 0", Visibility::visible}};
  TestResult wrong{"unrolled", TestKind::correctness, Verdict::wrong_answer, 0, 20, "hidden 501 x 77 [unrolled]: 3 wrong",
                   Visibility::visible, {}, {}, {}};
  wrong.cases = {{"public odd 5 x 13", "unrolled", Verdict::passed, "", Visibility::visible},
                 {"n = 1 mod 8: 17 x 9", "unrolled", Verdict::wrong_answer, "y[3] is 2, expected 1", Visibility::visible},
                 {"hidden 501 x 77", "unrolled", Verdict::wrong_answer, "y[5] is 0, expected 4", Visibility::hidden}};
  TestResult timed{"speedup", TestKind::performance, Verdict::below_threshold, 20.5, 20, "1.71x", Visibility::visible, {}, {}, {}};
  Measurement m;
  m.candidate = {"candidate unrolled", {0.01, 0.011}, 0.0105, 0.0101, 0.0109, 19.04, 76.2};
  m.baseline = {"judge rowptr", {0.018}, 0.018, 0.0179, 0.0181, 11.1, 44.4};
  m.compare = {{"candidate contiguous (failed correctness: not timed)", {}, 0, 0, 0, 0, 0}};
  m.speedup = 1.71;
  m.speedup_low = 1.6;
  m.speedup_high = 1.8;
  m.metric_value = 1.71;
  m.metric = "speedup";
  m.within_noise = true;
  m.noise_retries = 2;
  m.spent.setup = 1.25;
  m.spent.rounds = 2.5;
  m.spent.round_count = 6;
  m.spent.stopped_early = true;
  m.spent.checks = 0.75;
  m.spent.checked_rounds = 4;
  m.spent.cross_check = 0.5;
  m.spent.retries = 3;
  m.tiers = {{1.5, 0}, {1.8, 20}};
  timed.measurement = m;
  timed.next_step = "Look at the loop the compiler made";
  TestResult broken{"bandwidth", TestKind::performance, Verdict::internal_error, 0, 20, "the judge failed: killed",
                    Visibility::after_due_date, {}, {}, {}};
  r.tests = {rows, wrong, timed, broken};
  return r;
}

}  // namespace

TEST_CASE("a stored report read back gives Gradescope's writer exactly what the grading gave it") {
  Report graded = sample();
  const json stored = to_json(graded);
  CHECK(to_gradescope(report_from_json(stored)) == to_gradescope(graded));
  // Stopped before its items, and an internal error: the status is read back, never as a pass.
  graded.verdict = Verdict::build_error;
  graded.verdict_details = "the submission does not compile";
  CHECK(to_gradescope(report_from_json(to_json(graded))) == to_gradescope(graded));
  graded.verdict = Verdict::internal_error;
  CHECK(report_from_json(to_json(graded)).verdict == Verdict::internal_error);
}

TEST_CASE("what to_json wrote is read back, field by field") {
  const Report graded = sample();
  const Report back = report_from_json(to_json(graded));
  CHECK(back.seed == graded.seed);
  CHECK(back.verdict == Verdict::passed);  // `graded`
  CHECK(back.tests.size() == 4);
  CHECK(back.tests[1].cases[2].visibility == Visibility::hidden);
  CHECK(back.tests[3].visibility == Visibility::after_due_date);
  REQUIRE(back.tests[2].measurement);
  CHECK(back.tests[2].measurement->candidate.gbps == doctest::Approx(76.2));
  CHECK(back.tests[2].measurement->tiers.size() == 2);
  // Everything but the raw samples, which to_json does not keep (a compare row's `reps` among them).
  json again = to_json(back), first = to_json(graded);
  for (json* report : {&again, &first})
    for (auto& test : (*report)["tests"])
      if (test.contains("measurement")) {
        auto& mm = test["measurement"];
        for (const char* side : {"candidate", "baseline"}) mm[side].erase("reps");
        for (auto& row : mm["compare"]) row.erase("reps");
      }
  CHECK(again == first);
}

TEST_CASE("a report that is not what to_json writes reads as far as it goes, never as a pass it was not") {
  CHECK(report_from_json(json::array()).verdict == Verdict::internal_error);
  const Report odd = report_from_json({{"status", "a_verdict_from_a_newer_grader"}, {"tests", {{{"name", 3}}}}, {"score", "80"}});
  CHECK(odd.verdict == Verdict::internal_error);
  CHECK(odd.score == 0);
  REQUIRE(odd.tests.size() == 1);
  CHECK(odd.tests[0].name.empty());
  CHECK(odd.tests[0].verdict == Verdict::internal_error);  // no status at all
}
