// stored_report.cpp: see stored_report.h. The field names are to_json's (report/json_writer.cpp).
#include "batch/stored_report.h"

#include <string>

namespace grader {

namespace {

using json = nlohmann::json;

std::string text(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

double number(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_number() ? found->get<double>() : 0.0;
}

bool flag(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_boolean() && found->get<bool>();
}

const json& member(const json& object, const char* key) {
  static const json none = json::object();
  const auto found = object.find(key);
  return found != object.end() && (found->is_object() || found->is_array()) ? *found : none;
}

// A verdict name this grader does not know (a newer one's) reads as internal_error: never as a pass.
Verdict verdict_of(const std::string& name) {
  if (name == graded_status || name == "passed") return Verdict::passed;  // a report's own status, or an item's
  Verdict verdict = Verdict::internal_error;
  verdict_from_string(name, verdict);
  return verdict;
}

Visibility visibility_of(const std::string& name) {
  for (const Visibility v : {Visibility::visible, Visibility::hidden, Visibility::after_due_date})
    if (name == to_string(v)) return v;
  return Visibility::hidden;  // unknown: shown to no one
}

Timing timing_of(const json& stored) {
  Timing t;
  t.label = text(stored, "label");
  t.median = number(stored, "median_s");
  t.q1 = number(stored, "q1_s");
  t.q3 = number(stored, "q3_s");
  t.gflops = number(stored, "gflops");
  t.gbps = number(stored, "gbps");
  return t;
}

std::pair<double, double> range_of(const json& stored, const char* key) {
  const json& pair = member(stored, key);
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_number()) return {0, 0};
  return {pair[0].get<double>(), pair[1].get<double>()};
}

Measurement measurement_of(const json& stored) {
  Measurement m;
  m.candidate = timing_of(member(stored, "candidate"));
  m.baseline = timing_of(member(stored, "baseline"));
  for (const auto& row : member(stored, "compare"))
    if (row.is_object()) m.compare.push_back(timing_of(row));
  m.speedup = number(stored, "speedup");
  std::tie(m.speedup_low, m.speedup_high) = range_of(stored, "speedup_range");
  m.roofline_fraction = number(stored, "roofline_fraction");
  m.roofline_bound = text(stored, "roofline_bound");
  m.metric_value = number(stored, "metric_value");
  std::tie(m.metric_low, m.metric_high) = range_of(stored, "metric_interval");
  m.within_noise = flag(stored, "within_noise");
  m.noise_retries = static_cast<int>(number(stored, "noise_retries"));
  m.outside_checked = flag(stored, "outside_checked");
  const json& spent = member(stored, "seconds");
  m.spent.setup = number(spent, "setup");
  m.spent.rounds = number(spent, "rounds");
  m.spent.round_count = static_cast<int>(number(spent, "round_count"));
  m.spent.stopped_early = flag(spent, "stopped_early");
  m.spent.checks = number(spent, "checks");
  m.spent.checked_rounds = static_cast<int>(number(spent, "checked_rounds"));
  m.spent.compare = number(spent, "compare");
  m.spent.bound = number(spent, "bound");
  m.spent.cross_check = number(spent, "cross_check");
  m.spent.retries = number(spent, "retries");
  m.threshold_full = number(stored, "full_marks_at");
  m.metric = text(stored, "metric");
  for (const auto& tier : member(stored, "tiers"))
    if (tier.is_object()) m.tiers.push_back({number(tier, "at"), number(tier, "points")});
  const json& ceilings = member(stored, "ceilings");
  m.ceiling_gbps = number(ceilings, "memory_gbps");
  m.ceiling_gflops = number(ceilings, "compute_gflops");
  m.memory_ceiling = text(ceilings, "memory");
  m.compute_ceiling = text(ceilings, "compute");
  m.memory_reached = text(ceilings, "memory_reached");
  m.compute_reached = text(ceilings, "compute_reached");
  return m;
}

TestResult test_of(const json& stored) {
  TestResult test;
  test.name = text(stored, "name");
  test.kind = text(stored, "kind") == to_string(TestKind::performance) ? TestKind::performance : TestKind::correctness;
  test.verdict = verdict_of(text(stored, "status"));
  test.score = number(stored, "score");
  test.max_score = number(stored, "max_score");
  test.details = text(stored, "details");
  test.visibility = visibility_of(text(stored, "visibility"));
  for (const auto& c : member(stored, "cases"))
    if (c.is_object())
      test.cases.push_back({text(c, "name"), text(c, "variant"), verdict_of(text(c, "status")), text(c, "details"),
                            visibility_of(text(c, "visibility"))});
  if (const auto m = stored.find("measurement"); m != stored.end() && m->is_object()) test.measurement = measurement_of(*m);
  test.next_step = text(stored, "next_step");
  return test;
}

}  // namespace

Report report_from_json(const json& stored) {
  Report report;
  if (!stored.is_object()) {
    report.verdict = Verdict::internal_error;
    report.verdict_details = "the stored report is not a JSON object";
    return report;
  }
  report.lab = text(stored, "lab");
  report.lab_name = text(stored, "lab_name");
  report.title = text(stored, "title");
  report.submission = text(stored, "submission");
  if (const auto seed = stored.find("seed"); seed != stored.end() && seed->is_number_unsigned())
    report.seed = seed->get<std::uint64_t>();
  report.verdict = verdict_of(text(stored, "status"));
  report.verdict_details = text(stored, "status_details");
  report.score = number(stored, "score");
  report.max_score = number(stored, "max_score");
  report.hidden_tests_skipped = static_cast<int>(number(stored, "hidden_not_run"));
  for (const auto& warning : member(stored, "warnings"))
    if (warning.is_string()) report.warnings.push_back(warning.get<std::string>());
  report.candidate_output = text(stored, "candidate_output");
  report.isolation = text(stored, "isolation");
  report.build_log = text(stored, "build_log");
  const json& machine = member(stored, "machine");
  report.machine.hostname = text(machine, "hostname");
  report.machine.cpu = text(machine, "cpu");
  report.machine.threads = static_cast<int>(number(machine, "threads"));
  report.machine.calibrated = flag(machine, "calibrated");
  report.machine.gpu = text(machine, "gpu");
  report.machine.gpu_uuid = text(machine, "gpu_uuid");
  if (machine.contains("gpu_index")) report.machine.gpu_index = static_cast<int>(number(machine, "gpu_index"));
  report.wall_seconds = number(stored, "wall_seconds");
  for (const auto& stage : member(stored, "stage_seconds"))
    if (stage.is_object()) report.stage_seconds.emplace_back(text(stage, "stage"), number(stage, "seconds"));
  if (const json& sanitizer = member(stored, "sanitizer"); !sanitizer.empty()) {
    report.sanitizer_tool = text(sanitizer, "tool");
    report.sanitizer_program = text(sanitizer, "program");
    report.sanitizer_errors = static_cast<int>(number(sanitizer, "errors"));
    report.sanitizer_output = text(sanitizer, "output");
  }
  for (const auto& test : member(stored, "tests"))
    if (test.is_object()) report.tests.push_back(test_of(test));
  return report;
}

}  // namespace grader
