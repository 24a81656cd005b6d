// test_export_results.cpp: the results the platform exports hand over (grader/src/report/): PrairieLearn's
// results.json (score from 0 to 1, gradable, tests with points; nothing of a hidden case or item named) and
// Gradescope's leaderboard (the visible timed items' figures, never a hidden item's).
#include <doctest/doctest.h>

#include <string>

#include "report/leaderboard.h"
#include "report/writers.h"

using namespace grader;
using json = nlohmann::json;

namespace {

Report sample_report() {
  Report report;
  report.lab = "lab1";
  report.lab_name = "lab1-matvec";
  report.verdict = Verdict::passed;
  report.score = 38;
  report.max_score = 80;

  TestResult rows;
  rows.name = "row pointers";
  rows.verdict = Verdict::wrong_answer;
  rows.score = 0;
  rows.max_score = 10;
  rows.details = "secret 997 [rowptr]: 1 of 997 elements wrong";
  rows.cases.push_back({"square 100", "rowptr", Verdict::passed, "", Visibility::visible});
  rows.cases.push_back({"secret 997", "rowptr", Verdict::wrong_answer, "SECRET-DETAILS", Visibility::hidden});
  report.tests.push_back(rows);

  TestResult hidden_item;
  hidden_item.name = "SECRET-ITEM";
  hidden_item.verdict = Verdict::passed;
  hidden_item.score = 10;
  hidden_item.max_score = 10;
  hidden_item.details = "SECRET-ITEM-DETAILS";
  hidden_item.visibility = Visibility::hidden;
  report.tests.push_back(hidden_item);

  TestResult speed;
  speed.name = "unrolled bandwidth";
  speed.kind = TestKind::performance;
  speed.verdict = Verdict::below_threshold;
  speed.score = 8;
  speed.max_score = 20;
  Measurement m;
  m.candidate.gflops = 3.2049;
  m.candidate.gbps = 12.81;
  m.speedup = 2.1;
  speed.measurement = m;
  report.tests.push_back(speed);

  TestResult secret_speed = speed;
  secret_speed.name = "SECRET-SPEED";
  secret_speed.visibility = Visibility::after_due_date;
  report.tests.push_back(secret_speed);
  return report;
}

}  // namespace

TEST_CASE("PrairieLearn: the score is the fraction of the maximum, and tests carry points and max_points") {
  const json results = to_prairielearn(sample_report());
  CHECK(results["gradable"] == true);
  CHECK(results["score"].get<double>() == doctest::Approx(38.0 / 80));
  REQUIRE(results["tests"].size() == 4);
  CHECK(results["tests"][0]["name"] == "row pointers");
  CHECK(results["tests"][0]["points"] == 0);
  CHECK(results["tests"][0]["max_points"] == 10);
  CHECK(results["tests"][2]["points"] == 8);
  CHECK(results["tests"][2]["max_points"] == 20);
}

TEST_CASE("PrairieLearn shows every test: hidden items become 'hidden test N', hidden cases lose their details") {
  const std::string text = to_prairielearn(sample_report()).dump();
  CHECK(text.find("SECRET") == std::string::npos);
  const json results = to_prairielearn(sample_report());
  CHECK(results["tests"][1]["name"] == "hidden test 1");
  CHECK(results["tests"][1]["points"] == 10);
  CHECK(results["tests"][3]["name"] == "hidden test 2");
  CHECK(results["tests"][0]["output"].get<std::string>().find("a hidden case failed [rowptr]") != std::string::npos);
}

TEST_CASE("PrairieLearn: a build error or the grader's own failure is not gradable; the score stays within 0..1") {
  Report broken = sample_report();
  broken.verdict = Verdict::build_error;
  broken.build_log = "matvec.cpp:3: error: expected ';'";
  json results = to_prairielearn(broken);
  CHECK(results["gradable"] == false);
  CHECK(results["format_errors"][0].get<std::string>().find("expected ';'") != std::string::npos);

  Report failed = internal_error_report("lab1", "/grade/student", "the judge crashed");
  CHECK(to_prairielearn(failed)["gradable"] == false);
  CHECK(to_prairielearn(failed)["score"] == 0.0);  // no maximum: no division by zero

  Report over = sample_report();
  over.score = 85;  // more than the maximum (never, but the platform must not get 1.06)
  CHECK(to_prairielearn(over)["score"] == 1.0);
  Report refused = sample_report();
  refused.verdict = Verdict::policy_refused;
  CHECK(to_prairielearn(refused)["gradable"] == true);
}

TEST_CASE("Gradescope's leaderboard: the visible timed items' GFLOP/s, GB/s and speedup, rounded; no hidden item") {
  const json board = gradescope_leaderboard(sample_report());
  REQUIRE(board.size() == 3);
  CHECK(board[0]["name"] == "unrolled bandwidth: GFLOP/s");
  CHECK(board[0]["value"] == 3.2);
  CHECK(board[1]["name"] == "unrolled bandwidth: GB/s");
  CHECK(board[1]["value"] == 12.81);
  CHECK(board[2]["name"] == "unrolled bandwidth: speedup");
  CHECK(to_gradescope(sample_report())["leaderboard"] == board);

  Report suspect = sample_report();
  suspect.tests[2].verdict = Verdict::suspect;
  CHECK(gradescope_leaderboard(suspect).empty());
}
