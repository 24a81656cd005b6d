// test_inspect_report.cpp: "what your code does" in every report format (report/report.h, CodeLook): the text block,
// JSON's tests[].look, Gradescope's output and the HTML table with its folded, annotated listing; rows both sides
// read as 0 are left out of what a student reads; and the class dashboard's spread of vector widths.
#include <doctest/doctest.h>

#include "batch/dashboard.h"
#include "report/html_report.h"
#include "report/writers.h"
#include "spec/lab_spec.h"

using namespace grader;

namespace {

Report report_with_look() {
  Report report;
  report.lab = "lab9";
  report.lab_name = "lab9-demo";
  TestResult test;
  test.name = "fast sum";
  test.kind = TestKind::performance;
  test.verdict = Verdict::below_threshold;
  CodeLook look;
  look.function = "sum_unrolled";
  look.facts = {{"vector_bits", "vector width of the hot loop", "scalar", "ymm (256-bit)", 64.0, 256.0},
                {"tensor", "tensor-core instructions (mma)", "0", "0", 0.0, 0.0},
                {"accumulators", "independent accumulators in the hot loop", "1", "", 1.0, std::nullopt}};
  look.listing_title = "hot loop of sum_unrolled (x86-64, objdump)";
  look.listing = {"vaddsd (%rdi,%rax,8),%xmm0,%xmm0                # scalar FP, load"};
  look.note = "the reference's facts: a note";
  test.look = look;
  report.tests.push_back(test);
  return report;
}

}  // namespace

TEST_CASE("the text report shows the facts beside the reference's, and leaves out rows both read as 0") {
  const std::string text = render_text(report_with_look(), false);
  CHECK(text.find("what your code does (sum_unrolled)") != std::string::npos);
  CHECK(text.find("vector width of the hot loop") != std::string::npos);
  CHECK(text.find("ymm (256-bit)") != std::string::npos);
  CHECK(text.find("tensor-core") == std::string::npos);
  CHECK(text.find("the reference's facts: a note") != std::string::npos);
}

TEST_CASE("JSON carries every fact with its values; Gradescope's output the rows worth reading") {
  const Report report = report_with_look();
  const auto json = to_json(report);
  const auto& look = json["tests"][0]["look"];
  CHECK(look["function"] == "sum_unrolled");
  REQUIRE(look["facts"].size() == 3);
  CHECK(look["facts"][0]["key"] == "vector_bits");
  CHECK(look["facts"][0]["yours_value"] == 64.0);
  CHECK(look["facts"][2]["reference_value"].is_null());
  CHECK(look["listing"].size() == 1);
  const std::string output = to_gradescope(report)["tests"][0]["output"];
  CHECK(output.find("vector width of the hot loop: scalar / ymm (256-bit)") != std::string::npos);
  CHECK(output.find("tensor") == std::string::npos);
}

TEST_CASE("the HTML report: a facts table, and the listing folded under it") {
  const std::string html = render_html_report(to_json(report_with_look()), nullptr);
  CHECK(html.find("What your code does") != std::string::npos);
  CHECK(html.find("data-fact=\"vector_bits\"") != std::string::npos);
  CHECK(html.find("data-fact=\"tensor\"") == std::string::npos);
  const auto summary = html.find("hot loop of sum_unrolled");
  REQUIRE(summary != std::string::npos);
  const auto details = html.rfind("<details", summary);
  REQUIRE(details != std::string::npos);
  CHECK(html.substr(details, 9) == "<details>");  // folded: no `open`
  CHECK(html.find("# scalar FP, load") != std::string::npos);
}

TEST_CASE("the class dashboard counts the students' vector widths per timed item") {
  LabSpec spec;
  spec.id = "lab9";
  spec.slug = "demo";
  spec.title = "demo";
  std::vector<nlohmann::json> reports;
  for (const auto& [student, width] : std::vector<std::pair<std::string, std::string>>{{"alice", "scalar"}, {"bob", "ymm (256-bit)"}, {"carol", "scalar"}}) {
    Report report = report_with_look();
    report.tests[0].look->facts[0].yours = width;
    nlohmann::json json = to_json(report);
    json["batch"] = {{"student", student}, {"file", student}};
    reports.push_back(json);
  }
  const std::string html = class_dashboard_html(spec, reports, nullptr);
  const auto table = html.find("id=\"class-facts\"");
  REQUIRE(table != std::string::npos);
  CHECK(html.find("scalar: 2", table) != std::string::npos);
  CHECK(html.find("ymm (256-bit): 1", table) != std::string::npos);
}

// The counters of a profiled call (issue 33): rows like the code facts, and a line naming the ncu version and the
// launch seen, in every format; the dashboard tells coalesced classmates from the rest.
TEST_CASE("counters in every format: the rows, and the line with the ncu version and the launch seen") {
  Report report = report_with_look();
  CodeLook& look = *report.tests[0].look;
  look.facts.push_back({"sectors_per_load", "sectors per global load request (ncu)", "32.00", "", 32.0, std::nullopt});
  look.counters = "counters: Nsight Compute 2025.3.1.0, one extra call outside the timed rounds; k: 1 blocks of 256 threads";
  const std::string text = render_text(report, false);
  CHECK(text.find("sectors per global load request (ncu)") != std::string::npos);
  CHECK(text.find("counters: Nsight Compute 2025.3.1.0") != std::string::npos);
  const auto json = to_json(report);
  CHECK(json["tests"][0]["look"]["counters"] == look.counters);
  const std::string output = to_gradescope(report)["tests"][0]["output"];
  CHECK(output.find("sectors per global load request (ncu): 32.00 / -") != std::string::npos);
  CHECK(output.find("counters: Nsight Compute 2025.3.1.0") != std::string::npos);
  const std::string html = render_html_report(json, nullptr);
  CHECK(html.find("data-fact=\"sectors_per_load\"") != std::string::npos);
  CHECK(html.find("class=\"meta counters\">counters: Nsight Compute 2025.3.1.0") != std::string::npos);

  LabSpec spec;
  spec.id = "lab9";
  spec.slug = "demo";
  spec.title = "demo";
  std::vector<nlohmann::json> reports;
  for (const auto& [student, sectors] : std::vector<std::pair<std::string, double>>{{"alice", 32}, {"bob", 8}, {"carol", 16}}) {
    Report one = report;
    one.tests[0].look->facts.back().yours_value = sectors;
    nlohmann::json entry = to_json(one);
    entry["batch"] = {{"student", student}, {"file", student}};
    reports.push_back(entry);
  }
  const std::string dashboard = class_dashboard_html(spec, reports, nullptr);
  CHECK(dashboard.find("coalesced (16 or fewer): 2") != std::string::npos);
  CHECK(dashboard.find("not coalesced (over 16): 1") != std::string::npos);
}
