// test_batch_gradebook.cpp: what a batch derives from the students' reports: grades.csv
// (grader/src/batch/gradebook.h), summary.md (batch/summary.h), and the per-student pieces of
// batch/student.h (seeds, the student's view of a staff report).
#include <doctest/doctest.h>

#include <string>

#include "batch/gradebook.h"
#include "batch/student.h"
#include "batch/summary.h"
#include "report/writers.h"
#include "spec/lab_spec.h"

using namespace grader;
using json = nlohmann::json;

namespace {

const LabSpec& lab1() {
  static const LabSpec spec = load_lab_spec(std::string(TESTS_DIR) + "/../labs/lab1-matvec");
  return spec;
}

// A report as the batch stores it: to_json's schema with the "batch" object.
json stored(const std::string& id, const std::string& status, std::vector<std::pair<std::string, double>> scores,
            std::vector<std::string> verdicts, double candidate_seconds = 0) {
  json tests = json::array();
  double total = 0;
  const auto items = gradebook_items(lab1());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    json test = {{"name", scores[i].first}, {"kind", i < 3 ? "correctness" : "performance"}, {"status", verdicts[i]},
                 {"score", scores[i].second}, {"max_score", 20}};
    if (i == 3 && candidate_seconds > 0)
      test["measurement"] = {{"candidate", {{"median_s", candidate_seconds}}}, {"speedup", 0.4 / candidate_seconds}};
    tests.push_back(test);
    total += scores[i].second;
  }
  return {{"schema", "grader-report/1"}, {"status", status}, {"status_details", ""}, {"score", total}, {"max_score", 80},
          {"tests", tests}, {"batch", {{"student", id}}}};
}

json full(const std::string& id, std::vector<double> points, std::vector<std::string> verdicts, double seconds = 0) {
  std::vector<std::pair<std::string, double>> scores;
  const auto items = gradebook_items(lab1());
  for (std::size_t i = 0; i < points.size(); ++i) scores.push_back({items[i], points[i]});
  return stored(id, "graded", scores, verdicts, seconds);
}

}  // namespace

TEST_CASE("CSV fields and points are written the way spreadsheets read them") {
  CHECK(csv_field("alice") == "alice");
  CHECK(csv_field("unrolled speedup over row pointers, 10000 x 10000") == "\"unrolled speedup over row pointers, 10000 x 10000\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("two\nlines") == "\"two\nlines\"");
  CHECK(csv_field(" padded") == "\" padded\"");
  CHECK(format_points(20) == "20");
  CHECK(format_points(13.3333) == "13.33");
  CHECK(format_points(0.5) == "0.5");
  CHECK(format_points(-0.0001) == "0");
}

TEST_CASE("the status column names what went wrong first") {
  const json ok = full("a", {10, 10, 20, 20, 0}, {"passed", "passed", "passed", "passed", "below_threshold"});
  CHECK(student_status(ok) == "passed");
  const json crashed = full("b", {10, 10, 0, 0, 0}, {"passed", "passed", "crash", "not_run", "not_run"});
  CHECK(student_status(crashed) == "crash");
  json broken = full("c", {0, 0, 0, 0, 0}, {"build_error", "build_error", "build_error", "build_error", "build_error"});
  broken["status"] = "build_error";
  CHECK(student_status(broken) == "build_error");
  const json quick = full("d", {10, 10, 20, 0, 0}, {"passed", "passed", "passed", "not_run", "not_run"});
  CHECK(student_status(quick) == "passed");
  // A report from a grader before "graded" said "passed" for a submission that went through every stage.
  json older = full("e", {10, 0, 20, 0, 0}, {"passed", "wrong_answer", "passed", "not_run", "not_run"});
  older["status"] = "passed";
  CHECK(student_status(older) == "wrong_answer");
}

TEST_CASE("grades.csv: a header in lab.toml's order, one row per student, a cell per item") {
  const json alice = full("alice", {10, 10, 20, 20, 13.5}, {"passed", "passed", "passed", "passed", "below_threshold"});
  const json bob = full("bob, jr.", {10, 0, 20, 0, 0}, {"passed", "wrong_answer", "passed", "not_run", "not_run"});
  Report internal = internal_error_report("lab1", "/subs/carol", "boom");
  internal.max_score = 80;  // as the batch stores it
  json carol = to_json(internal);
  carol["batch"] = {{"student", "carol"}};
  const std::string csv = gradebook_csv(lab1(), {alice, bob, carol});
  const std::string expected =
      "student,total,max,status,row pointers,contiguous layout,unrolled,"
      "\"unrolled speedup over row pointers, 10000 x 10000\",\"unrolled bandwidth, 10000 x 10000\"\r\n"
      "alice,73.5,80,passed,10,10,20,20,13.5\r\n"
      "\"bob, jr.\",30,80,wrong_answer,10,0,20,0,0\r\n"
      "carol,0,80,internal_error,,,,,\r\n";
  CHECK(csv == expected);
}

TEST_CASE("summary.md: histogram, mean and median, statuses, fastest and slowest correct submissions") {
  std::vector<json> reports;
  for (int i = 0; i < 7; ++i)
    reports.push_back(full("fast" + std::to_string(i), {10, 10, 20, 20, 20}, {"passed", "passed", "passed", "passed", "passed"},
                           0.1 + 0.01 * i));
  reports.push_back(full("slowest", {10, 10, 20, 0, 0}, {"passed", "passed", "passed", "below_threshold", "below_threshold"}, 0.9));
  reports.push_back(full("wrong", {10, 10, 0, 0, 0}, {"passed", "passed", "wrong_answer", "not_run", "not_run"}, 0.05));
  json broken = full("broken", {0, 0, 0, 0, 0}, {"build_error", "build_error", "build_error", "build_error", "build_error"});
  broken["status"] = "build_error";
  reports.push_back(broken);

  SummaryFacts facts;
  facts.roster_size = 11;
  facts.not_graded = {"late"};
  const std::string md = summary_markdown(lab1(), reports, facts);
  INFO(md);
  CHECK(md.find("10 of 11 students graded") != std::string::npos);
  CHECK(md.find("**Not graded yet** (run the same command again to grade them): late") != std::string::npos);
  CHECK(md.find("| mean | 62 |") != std::string::npos);     // (7*80 + 40 + 20 + 0) / 10
  CHECK(md.find("| median | 80 |") != std::string::npos);
  CHECK(md.find("| build_error | 1 |") != std::string::npos);
  CHECK(md.find("| wrong_answer | 1 |") != std::string::npos);
  CHECK(md.find("| passed | 8 |") != std::string::npos);
  CHECK(md.find("Build failures: 1.") != std::string::npos);
  CHECK(md.find("| fastest | fast0 | 100.00 ms |") != std::string::npos);
  CHECK(md.find("| slowest | slowest | 900.00 ms |") != std::string::npos);
  CHECK(md.find("wrong |") == std::string::npos);  // incorrect submissions are not ranked, however fast
  // The histogram: 7 full scores in the last bin, the build error in the first.
  CHECK(md.find("[72, 80]      |######################################## 7") != std::string::npos);
  CHECK(md.find("[0, 8)        |###### 1") != std::string::npos);
}

TEST_CASE("summary.md: a student whose grading had an internal error, in the report or in one item, needs a person") {
  // Issue 31: zoe's judge failed in one timed item. Her report says internal_error (pipeline/grade.cpp); a report
  // from a grader before that said graded, with the item's verdict inside: both are listed, neither as a score.
  json zoe = full("zoe", {10, 10, 20, 20, 0}, {"passed", "passed", "passed", "passed", "internal_error"});
  zoe["status"] = "internal_error";
  zoe["status_details"] = "the grader failed on \"unrolled bandwidth\", not the submission";
  json older = full("old", {10, 10, 20, 20, 0}, {"passed", "passed", "passed", "passed", "internal_error"});
  older["tests"][4]["details"] = "the judge failed: ran past the wall-clock limit of 120 s";
  const std::vector<json> reports = {zoe, older, full("ann", {10, 10, 20, 20, 20}, {"passed", "passed", "passed", "passed", "passed"})};
  const std::string md = summary_markdown(lab1(), reports, SummaryFacts{});
  INFO(md);
  CHECK(md.find("## Needs a person") != std::string::npos);
  CHECK(md.find("- internal error (not the student's fault; `--regrade` once fixed): zoe: the grader failed on "
                "\"unrolled bandwidth\"") != std::string::npos);
  CHECK(md.find("- internal error (not the student's fault; `--regrade` once fixed): old: unrolled bandwidth, 10000 x "
                "10000: the judge failed") != std::string::npos);
  CHECK(md.find("ann:") == std::string::npos);
  CHECK(md.find("| internal_error | 2 |") != std::string::npos);
}

TEST_CASE("each student's seed depends on the batch seed and the id only") {
  CHECK(student_seed(42, "alice") == student_seed(42, "alice"));
  CHECK(student_seed(42, "alice") != student_seed(42, "bob"));
  CHECK(student_seed(42, "alice") != student_seed(43, "alice"));
  CHECK(student_seed(42, "alice") < (1ULL << 53));  // exact in JSON
}

TEST_CASE("the student's feedback keeps a hidden case's verdict but not its name or details") {
  Report report;
  TestResult unrolled{"unrolled", TestKind::correctness, Verdict::wrong_answer, 0, 20,
                      "odd 997 x 1013 [unrolled]: 1 of 997 elements wrong; worst at [5]", Visibility::visible, {}, {}};
  unrolled.cases.push_back({"square 100", "unrolled", Verdict::passed, "", Visibility::visible});
  unrolled.cases.push_back({"odd 997 x 1013", "unrolled", Verdict::wrong_answer, "worst at [5]: SECRET", Visibility::hidden});
  report.tests.push_back(unrolled);
  const Report view = student_view(report);
  const std::string text = render_text(view, false);
  CHECK(text.find("SECRET") == std::string::npos);
  CHECK(text.find("997") == std::string::npos);
  // The text lists an item's failing runs under it: the hidden one by its verdict alone.
  CHECK(text.find("hidden case [unrolled]: wrong answer") != std::string::npos);
  CHECK(view.tests[0].details == "a hidden case failed [unrolled]: wrong answer");
  CHECK(view.tests[0].cases[1].verdict == Verdict::wrong_answer);
  CHECK(view.tests[0].cases[0].name == "square 100");
}
