// test_html_report.cpp: the HTML report (grader/src/report/html_report.h) shows a student's and a compiler's bytes as
// text, never as markup, and writes the figures the browser tests read. The rendering itself is checked in headless
// Chromium (tests/browser).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "report/html_page.h"
#include "report/html_report.h"
#include "report/roofline_svg.h"
#include "report/writers.h"

using namespace grader;

namespace {

Report hostile_report() {
  Report report;
  report.lab = "lab9";
  report.lab_name = "lab9-demo";
  report.title = "Demo";
  report.submission = "/tmp/<img src=x onerror=alert(1)>";
  report.verdict = Verdict::build_error;
  report.verdict_details = "does not compile";
  report.build_log = "demo.cpp:1: error: '</script><script>alert(1)</script>' <!-- \xff";
  TestResult correct;
  correct.name = "small \"<b>\"";
  correct.kind = TestKind::correctness;
  correct.verdict = Verdict::wrong_answer;
  correct.cases.push_back({"n <10>", "fast", Verdict::wrong_answer, "worst at [3] & more", Visibility::visible});
  report.tests.push_back(correct);
  TestResult timed;
  timed.name = "fast bandwidth";
  timed.kind = TestKind::performance;
  timed.verdict = Verdict::below_threshold;
  timed.next_step = "split the <sum>";
  Measurement m;
  m.candidate = {"candidate fast", {0.1}, 0.1, 0.1, 0.1, 2.0, 8.0};
  m.baseline = {"judge slow", {0.2}, 0.2, 0.2, 0.2, 1.0, 4.0};
  m.metric = "roofline";
  m.metric_value = 0.3;
  m.threshold_full = 0.65;
  m.tiers = {{0.45, 0}, {0.65, 20}};
  m.ceiling_gbps = 30;
  m.ceiling_gflops = 100;
  timed.measurement = m;
  report.tests.push_back(timed);
  return report;
}

}  // namespace

TEST_CASE("a student's and a compiler's bytes are text in the page, never markup") {
  const std::string page = render_html_report(to_json(hostile_report()), nullptr);
  CHECK(page.find("<img") == std::string::npos);
  CHECK(page.find("<b>") == std::string::npos);
  CHECK(page.find("<script>") == std::string::npos);
  CHECK(page.find("<!--") == std::string::npos);
  CHECK(page.find("&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
  CHECK(page.find("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  // The only <script> is the report's JSON as a data block, and it ends exactly once.
  CHECK(page.find("<script type=\"application/json\" id=\"grader-report\">") != std::string::npos);
  CHECK(page.find("</script>") == page.rfind("</script>"));
  CHECK(page.find("\xff") == std::string::npos);  // made valid UTF-8
}

TEST_CASE("the page holds every item, the next step, a ladder and a mark per timed kernel") {
  const std::string page = render_html_report(to_json(hostile_report()), nullptr);
  CHECK(page.find("data-item=\"small &quot;&lt;b&gt;&quot;\"") != std::string::npos);
  CHECK(page.find("data-item=\"fast bandwidth\"") != std::string::npos);
  CHECK(page.find("next step:</strong> split the &lt;sum&gt;") != std::string::npos);
  CHECK(page.find("class=\"ladder\"") != std::string::npos);
  CHECK(page.find("class=\"pt pt-candidate\"") != std::string::npos);
  CHECK(page.find("class=\"pt pt-baseline\"") != std::string::npos);
  CHECK(page.find("class=\"pt pt-reference\"") == std::string::npos);  // no selftest record given
  CHECK(page.find("data-intensity=\"0.250000\" data-gflops=\"2.000000\"") != std::string::npos);
}

TEST_CASE("the reference's recorded figures add its mark") {
  const nlohmann::json reference = {{"lab", "lab9-demo"},
                                    {"items", {{{"name", "fast bandwidth"}, {"gflops", 4.0}, {"gbps", 16.0}}}}};
  const std::string page = render_html_report(to_json(hostile_report()), reference);
  CHECK(page.find("class=\"pt pt-reference\"") != std::string::npos);
  CHECK(page.find("data-series=\"reference\" data-intensity=\"0.250000\" data-gflops=\"4.000000\"") != std::string::npos);
}

TEST_CASE("items held to one calibrated ceiling share one line, at the highest rate judge code reached") {
  auto measurement = [](double gbps, const std::string& reached) {
    return nlohmann::json{{"ceilings", {{"memory_gbps", gbps}, {"compute_gflops", 100.0},
                                        {"memory", "read-only memory bandwidth (1 thread, 20.0 GB/s)"},
                                        {"compute", "FP64 peak (1 thread, 100.0 GFLOP/s)"},
                                        {"memory_reached", reached}, {"compute_reached", ""}}}};
  };
  std::vector<RooflineCeiling> ceilings;
  add_item_ceilings(ceilings, measurement(20.0, ""));
  add_item_ceilings(ceilings, measurement(31.4, "judge read_a reached 31.4 GB/s in this grading"));
  add_item_ceilings(ceilings, measurement(25.0, "judge tuned reached 25.0 GB/s in this grading"));
  REQUIRE(ceilings.size() == 1);
  CHECK(ceilings[0].gbps == doctest::Approx(31.4));
  CHECK(ceilings[0].raised);
  CHECK(roofline_svg(ceilings, {{8.0, 32.0, "candidate", "matvec", "1", "yours", ""}}).find("raised to what judge code "
                                                                                           "reached") != std::string::npos);
  // Another calibrated ceiling (all threads) is a line of its own; a measurement without ceilings adds none.
  auto all_threads = measurement(40.0, "");
  all_threads["ceilings"]["memory"] = "read-only memory bandwidth (all threads, 40.0 GB/s)";
  add_item_ceilings(ceilings, all_threads);
  add_item_ceilings(ceilings, nlohmann::json::object());
  CHECK(ceilings.size() == 2);
  CHECK_FALSE(ceilings[1].raised);
}

TEST_CASE("one duration formatter for the report and selftest's problem lines: a 0.1 us call reads 0.1 us") {
  CHECK(html::duration(1e-7) == "0.1 us");  // selftest once printed "0.00 ms" for it (issue 31)
  CHECK(html::duration(0.03012) == "30.12 ms");
  CHECK(html::duration(1.5) == "1.500 s");
}

namespace {

// The y of every <text class="CLASS" ... y="..."> in `svg`, in order.
std::vector<double> text_ys(const std::string& svg, const std::string& css_class) {
  std::vector<double> ys;
  const std::string open = "<text class=\"" + css_class + "\"";
  for (std::size_t at = svg.find(open); at != std::string::npos; at = svg.find(open, at + 1)) {
    const std::size_t y = svg.find(" y=\"", at) + 4;
    ys.push_back(std::stod(svg.substr(y, svg.find('"', y) - y)));
  }
  return ys;
}

}  // namespace

TEST_CASE("two calibrations of one GPU kind: their roofs' labels are written apart, and a repeated one once") {
  std::vector<RooflineCeiling> ceilings{{1500.0, 9500.0, "HBM (gpu 0); FP32 (gpu 0)", false},
                                        {1510.0, 9600.0, "HBM (gpu 1); FP32 (gpu 1)", false},
                                        {1500.0, 9500.0, "HBM (gpu 2); FP32 (gpu 2)", false}};
  const std::string svg = roofline_svg(ceilings, {{100.0, 50.0, "student", "gemv", "", "a", ""}});
  const std::vector<double> ys = text_ys(svg, "ceiling-label");
  REQUIRE(ys.size() == 2);  // gpu 2's label is gpu 0's, word for word
  CHECK(std::abs(ys[0] - ys[1]) >= 14);  // a 12-unit font: one line apart at least
}

TEST_CASE("tiers close together: their ladder labels go on separate lines, never on top of each other") {
  Report report = hostile_report();
  Measurement& m = *report.tests[1].measurement;
  m.metric = "speedup";
  m.metric_value = 1.2;
  m.threshold_full = 1.8;
  m.tiers = {{1.5, 0}, {1.8, 20}};  // the walk's lab1 ladder, whose labels overlapped at 1280 px (issue 31)
  const std::string page = render_html_report(to_json(report), nullptr);
  const std::vector<double> ys = text_ys(page, "tier-label");
  REQUIRE(ys.size() == 2);
  CHECK(ys[0] != ys[1]);
  // Tiers far apart stay on one line.
  m.tiers = {{0.5, 0}, {1.8, 20}};
  const std::vector<double> apart = text_ys(render_html_report(to_json(report), nullptr), "tier-label");
  REQUIRE(apart.size() == 2);
  CHECK(apart[0] == apart[1]);
}
