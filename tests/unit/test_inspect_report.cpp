// test_inspect_report.cpp: "what your code does" in every report format (report/report.h, CodeLook): the text block,
// JSON's tests[].look, Gradescope's output and the HTML table with its folded, annotated listing; rows both sides
// read as 0 are left out of what a student reads; and the class dashboard's spread of vector widths.
#include <doctest/doctest.h>

#include <algorithm>

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

namespace {

// A report whose item carries the source listing and the counters of a machine without hardware counters (the
// candidate's side) beside one with them (the yardstick's): each figure is shown where a side has it.
Report report_with_counters() {
  Report report = report_with_look();
  CodeLook& look = *report.tests[0].look;
  look.source_listing = {{"sum.cpp:7", "    for (long i = 0; i < n; ++i) s += a[i];",
                          {{"vaddsd (%rdi,%rax,8),%xmm0,%xmm0  # scalar FP, load", true}, {"add $0x1,%rax", false}}},
                         {"labkit.h:3", "", {{"cmp %rax,%rsi", false}}}};
  Measurement m;
  m.candidate.label = "candidate sum";
  m.baseline.label = "judge naive";
  CpuCounters counters;
  CounterSet yours;
  yours.label = "candidate sum";
  yours.threads = 1;
  yours.cpu_seconds = 0.002;
  yours.page_faults = 3;
  yours.flops = 2e6;
  CounterSet judge = yours;
  judge.label = "judge naive";
  judge.cycles = 4e6;
  judge.instructions = 8e6;
  judge.cache_misses = 8e3;
  counters.sides = {yours, judge};
  counters.unavailable = "no hardware performance counters here (perf_event_open of cycles: ENOENT; a VM?)";
  m.cpu_counters = counters;
  report.tests[0].measurement = m;
  return report;
}

}  // namespace

TEST_CASE("counters: derived figures, a row per figure some side has, '-' where a side lacks it") {
  const Report report = report_with_counters();  // held: the counters below are its
  const CpuCounters& counters = *report.tests[0].measurement->cpu_counters;
  CHECK(counters.sides[1].ipc().value() == doctest::Approx(2.0));
  CHECK(counters.sides[1].per_kilo_instruction(counters.sides[1].cache_misses).value() == doctest::Approx(1.0));
  CHECK(counters.sides[1].flops_per_cycle().value() == doctest::Approx(0.5));
  CHECK_FALSE(counters.sides[0].ipc().has_value());
  CHECK(counters.sides[0].gflops_per_cpu_second().value() == doctest::Approx(1.0));  // 2e6 flops in 2 ms
  const auto rows = counter_rows(counters);
  const auto ipc = std::find_if(rows.begin(), rows.end(), [](const CounterRow& row) { return row.key == "ipc"; });
  REQUIRE(ipc != rows.end());
  CHECK(ipc->values == std::vector<std::string>{"-", "2.00"});
  CHECK(std::none_of(rows.begin(), rows.end(), [](const CounterRow& row) { return row.key == "branch_misses_per_kilo_instruction"; }));

  const std::string text = render_text(report_with_counters(), false);
  CHECK(text.find("counted over one more call") != std::string::npos);
  CHECK(text.find("instructions per cycle") != std::string::npos);
  CHECK(text.find("only software counts: no hardware performance counters here") != std::string::npos);
  const auto json = to_json(report_with_counters());
  const auto& sides = json["tests"][0]["measurement"]["cpu_counters"]["sides"];
  REQUIRE(sides.size() == 2);
  CHECK(sides[0]["cycles"].is_null());  // absent, never 0
  CHECK(sides[1]["ipc"] == doctest::Approx(2.0));
}

TEST_CASE("the HTML report: the hot loop under the source lines, folded, its FP arithmetic marked; the counters") {
  const std::string html = render_html_report(to_json(report_with_counters()), nullptr);
  const auto summary = html.find("hot loop beside your source lines");
  REQUIRE(summary != std::string::npos);
  CHECK(html.substr(html.rfind("<details", summary), 9) == "<details>");  // folded
  const auto source = html.find("<div class=\"source\">", summary);
  REQUIRE(source != std::string::npos);
  const auto line = html.find("for (long i = 0; i &lt; n; ++i) s += a[i];", source);
  REQUIRE(line != std::string::npos);
  // The FP instruction under its line, marked; the integer one under it, not.
  const auto fp = html.find("<div class=\"asm fp\">vaddsd", line);
  REQUIRE(fp != std::string::npos);
  CHECK(html.find("<div class=\"asm\">add $0x1,%rax", fp) != std::string::npos);
  CHECK(html.find("labkit.h:3", fp) != std::string::npos);
  CHECK(html.find("data-counter=\"ipc\"") != std::string::npos);
  CHECK(html.find("only software counts: no hardware performance counters here") != std::string::npos);
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
  CHECK(html.find("class=\"meta ncu-counters\">counters: Nsight Compute 2025.3.1.0") != std::string::npos);

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
