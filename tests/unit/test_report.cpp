// test_report.cpp: the report writers (grader/src/report/writers.h) on a hand-built report: the JSON
// schema "grader-report/1", Gradescope's results.json fields, and the terminal text with and without colour.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "report/writers.h"

using namespace grader;
using json = nlohmann::json;

namespace {

// Three tests: a passed correctness item, a failed one with one failing (and one hidden) case, and a timed
// performance item short of full marks.
Report sample_report() {
  Report report;
  report.lab = "lab1";
  report.lab_name = "lab1-matvec";
  report.title = "CPU matrix-vector multiply";
  report.submission = "/tmp/alice";
  report.seed = 9007199254740991ULL;  // 2^53 - 1: the largest seed a double carries exactly
  report.verdict = Verdict::passed;
  report.isolation = "own process group";
  report.machine.hostname = "node7";
  report.machine.cpu = "Test CPU";
  report.machine.threads = 8;
  report.wall_seconds = 3.2;

  TestResult rows{"row pointers", TestKind::correctness, Verdict::passed, 10, 10, "3 runs passed",
                  Visibility::visible, {}, {}};
  rows.cases.push_back({"square 100", "rowptr", Verdict::passed, "", Visibility::visible});

  TestResult unrolled{"unrolled", TestKind::correctness, Verdict::wrong_answer, 0, 20,
                      "odd 5 x 13 [unrolled]: 1 of 5 elements wrong", Visibility::visible, {}, {}};
  unrolled.cases.push_back({"square 100", "unrolled", Verdict::passed, "", Visibility::visible});
  unrolled.cases.push_back({"odd 5 x 13", "unrolled", Verdict::wrong_answer,
                            "1 of 5 elements wrong; worst at [4]: expected 1.5, got 0", Visibility::visible});
  unrolled.cases.push_back({"secret 997", "unrolled", Verdict::wrong_answer, "SECRET-DETAILS", Visibility::hidden});

  TestResult speed{"unrolled speedup", TestKind::performance, Verdict::below_threshold, 8, 20,
                   "speedup 1.50x; full marks from 1.80x", Visibility::visible, {}, {}};
  Measurement m;
  m.candidate = {"candidate unrolled", {0.010, 0.011, 0.012}, 0.011, 0.0105, 0.0115, 18.2, 72.7};
  m.baseline = {"judge rowptr", {0.016, 0.0165, 0.017}, 0.0165, 0.01625, 0.01675, 12.1, 48.5};
  m.speedup = 1.5;
  m.speedup_low = 1.41;
  m.speedup_high = 1.6;
  m.roofline_fraction = 0.42;
  m.roofline_bound = "memory bandwidth (1 thread)";
  m.metric_value = 1.5;
  m.threshold_full = 1.8;
  speed.measurement = m;

  report.tests = {rows, unrolled, speed};
  report.score = 18;
  report.max_score = 50;
  return report;
}

// nlohmann writes NaN and infinity as null: a figure that turned into null was not finite.
int count_nulls(const json& j) {
  if (j.is_null()) return 1;
  int nulls = 0;
  if (j.is_structured())
    for (const auto& child : j) nulls += count_nulls(child);
  return nulls;
}

}  // namespace

TEST_CASE("to_json: the documented top-level fields") {
  const json j = to_json(sample_report());
  CHECK(j.at("schema") == "grader-report/1");
  CHECK(j.at("lab") == "lab1");
  CHECK(j.at("lab_name") == "lab1-matvec");
  CHECK(j.at("submission") == "/tmp/alice");
  CHECK(j.at("seed").get<std::uint64_t>() == 9007199254740991ULL);
  CHECK(j.at("status") == "graded");  // went through every stage; "passed" would read as a passing grade
  CHECK(j.at("score").get<double>() == 18);
  CHECK(j.at("max_score").get<double>() == 50);
  CHECK(j.contains("build_log"));
  CHECK(j.contains("status_details"));
  CHECK(j.at("machine").at("hostname") == "node7");
  CHECK(j.at("machine").at("threads") == 8);
  CHECK(j.at("sanitizer").is_null());
  REQUIRE(j.at("tests").is_array());
  CHECK(j.at("tests").size() == 3);
}

TEST_CASE("to_json: tests, cases and measurements") {
  const json tests = to_json(sample_report()).at("tests");
  for (const auto& t : tests) {
    for (const char* key : {"name", "kind", "status", "score", "max_score", "details", "visibility"}) {
      CAPTURE(key);
      CHECK(t.contains(key));
    }
  }
  CHECK(tests[0].at("name") == "row pointers");
  CHECK(tests[0].at("kind") == "correctness");
  CHECK(tests[0].at("status") == "passed");
  CHECK(tests[1].at("status") == "wrong_answer");
  REQUIRE(tests[1].at("cases").size() == 3);
  CHECK(tests[1].at("cases")[1].at("name") == "odd 5 x 13");
  CHECK(tests[1].at("cases")[1].at("variant") == "unrolled");
  CHECK(tests[1].at("cases")[1].at("status") == "wrong_answer");
  CHECK(tests[1].at("cases")[1].at("details") == "1 of 5 elements wrong; worst at [4]: expected 1.5, got 0");
  CHECK(tests[1].at("cases")[2].at("visibility") == "hidden");

  const json& perf = tests[2];
  CHECK(perf.at("kind") == "performance");
  CHECK(perf.at("status") == "below_threshold");
  CHECK_FALSE(perf.contains("cases"));
  REQUIRE(perf.contains("measurement"));
  const json& m = perf.at("measurement");
  CHECK(m.at("speedup").get<double>() == doctest::Approx(1.5));
  CHECK(m.at("speedup_range")[0].get<double>() == doctest::Approx(1.41));
  CHECK(m.at("speedup_range")[1].get<double>() == doctest::Approx(1.6));
  CHECK(m.at("roofline_fraction").get<double>() == doctest::Approx(0.42));
  CHECK(m.at("full_marks_at").get<double>() == doctest::Approx(1.8));
  CHECK(m.at("candidate").at("median_s").get<double>() == doctest::Approx(0.011));
  CHECK(m.at("candidate").at("reps") == 3);
  CHECK(m.at("baseline").at("label") == "judge rowptr");
  CHECK(m.at("compare").is_array());
}

TEST_CASE("to_json: non-finite figures become 0, never invalid JSON") {
  Report report = sample_report();
  report.tests[2].measurement->speedup = std::numeric_limits<double>::infinity();
  report.tests[2].measurement->candidate.gflops = std::numeric_limits<double>::quiet_NaN();
  const json back = json::parse(to_json(report).dump());
  CHECK(count_nulls(back) == 1);  // "sanitizer": null, and nothing else
  CHECK(back.at("tests")[2].at("measurement").at("speedup").get<double>() == 0);
  CHECK(back.at("tests")[2].at("measurement").at("candidate").at("gflops").get<double>() == 0);
}

TEST_CASE("to_gradescope: results.json's fields") {
  const json g = to_gradescope(sample_report());
  CHECK(g.at("score").get<double>() == 18);
  CHECK(g.contains("output"));
  CHECK(g.contains("execution_time"));
  REQUIRE(g.at("tests").size() == 3);
  for (const auto& t : g.at("tests")) {
    for (const char* key : {"name", "score", "max_score", "status", "output", "visibility"}) {
      CAPTURE(key);
      CHECK(t.contains(key));
    }
    CHECK((t.at("status") == "passed" || t.at("status") == "failed"));
  }
  CHECK(g.at("tests")[0].at("status") == "passed");
  CHECK(g.at("tests")[1].at("status") == "failed");
  CHECK(g.at("tests")[1].at("max_score").get<double>() == 20);
  const std::string output = g.at("tests")[1].at("output");
  CHECK(output.find("worst at [4]") != std::string::npos);    // the visible failing case is explained
  CHECK(output.find("SECRET-DETAILS") == std::string::npos);  // the hidden one is not
  CHECK(g.at("tests")[2].at("score").get<double>() == 8);
}

TEST_CASE("to_gradescope: the summary line of a submission with a wrong answer never says passed") {
  const json g = to_gradescope(sample_report());
  const std::string output = g.at("output");
  CHECK(output.rfind("lab1-matvec: graded, 18 / 50 points; first failure: wrong answer in ", 0) == 0);
  CHECK(output.find("passed") == std::string::npos);
}

TEST_CASE("to_gradescope: a build error puts the compiler's words in the output") {
  Report report = sample_report();
  report.verdict = Verdict::build_error;
  report.verdict_details = "the submission does not compile";
  report.build_log = "matvec.cpp:3:5: error: 'undeclared_sum' was not declared in this scope";
  const json g = to_gradescope(report);
  CHECK(g.at("output").get<std::string>().find("undeclared_sum") != std::string::npos);
}

TEST_CASE("render_text without colour: no escape codes; the total and every test") {
  const std::string text = render_text(sample_report(), false);
  CHECK(text.find('\033') == std::string::npos);
  CHECK(text.find("total 18 / 50") != std::string::npos);
  for (const char* name : {"row pointers", "unrolled", "unrolled speedup"}) {
    CAPTURE(name);
    CHECK(text.find(name) != std::string::npos);
  }
  CHECK(text.find("worst at [4]") != std::string::npos);
  CHECK(text.find("--seed 9007199254740991") != std::string::npos);
  CHECK(text.find("1.50x") != std::string::npos);
}

namespace {
std::size_t occurrences(const std::string& text, const std::string& word) {
  std::size_t count = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++count;
  return count;
}
}  // namespace

TEST_CASE("render_text: the first failing case once, and a cut list says how many it left out") {
  Report report = sample_report();
  CHECK(occurrences(render_text(report, false), "worst at [4]") == 1);
  CHECK(occurrences(render_text(report, false), "odd 5 x 13 [unrolled]") == 1);
  CHECK(render_text(report, false).find("2 of 3 runs failed") != std::string::npos);
  for (int i = 0; i < 5; ++i)
    report.tests[1].cases.push_back({"extra " + std::to_string(i), "unrolled", Verdict::crash, "killed", Visibility::visible});
  const std::string text = render_text(report, false);
  CHECK(occurrences(text, "extra ") == 2);  // four failing runs listed: the two above and two of these
  CHECK(text.find("... and 3 more failing run(s)") != std::string::npos);
}

TEST_CASE("render_text: small rates keep three significant digits") {
  Report report = sample_report();
  report.tests[2].measurement->candidate.gbps = 0.004237;
  CHECK(render_text(report, false).find("0.00424") != std::string::npos);
}

TEST_CASE("render_text: a name longer than its column pushes the column out, never into the points") {
  Report report = sample_report();
  const std::string long_name(70, 'n');
  report.tests[0].name = long_name;                                 // correctness, column 34
  report.tests[2].name = long_name + " speedup";                    // performance, column 56
  const std::string text = render_text(report, false);
  CHECK(text.find(long_name + "  10 / 10") != std::string::npos);
  CHECK(text.find(long_name + " speedup  8 / 20") != std::string::npos);
  // The other rows line up with the long one: their points start in the same column.
  const auto row = text.find("unrolled ");
  const auto line_start = text.rfind('\n', row) + 1;
  CHECK(text.find("0 / 20", row) - line_start == text.find("10 / 10") - (text.rfind('\n', text.find("10 / 10")) + 1));
}

TEST_CASE("render_text with colour paints, and says the same words") {
  const std::string text = render_text(sample_report(), true);
  CHECK(text.find('\033') != std::string::npos);
  CHECK(text.find("total 18 / 50") != std::string::npos);
  CHECK(text.find("row pointers") != std::string::npos);
}

TEST_CASE("render_text: a build error shows the compiler's output") {
  Report report = sample_report();
  report.verdict = Verdict::build_error;
  report.verdict_details = "the submission does not compile";
  report.build_log = "matvec.cpp:3:5: error: 'undeclared_sum' was not declared in this scope";
  const std::string text = render_text(report, false);
  CHECK(text.find("build error") != std::string::npos);
  CHECK(text.find("'undeclared_sum' was not declared") != std::string::npos);
}

TEST_CASE("internal_error_report: zero points and the reason") {
  const Report report = internal_error_report("lab1", "/tmp/bob", "disk full");
  CHECK(report.verdict == Verdict::internal_error);
  CHECK(report.score == 0);
  CHECK(report.verdict_details.find("disk full") != std::string::npos);
  const json j = to_json(report);
  CHECK(j.at("status") == "internal_error");
  CHECK(j.at("submission") == "/tmp/bob");
}
