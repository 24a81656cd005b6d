#include <algorithm>
#include <cmath>

#include "report/leaderboard.h"
#include "report/writers.h"
#include "score/score.h"

namespace grader {

namespace {

using json = nlohmann::json;

double finite_or_zero(double value) { return std::isfinite(value) ? value : 0.0; }

// In the order the stages first ran (a JSON object would sort them by name).
// "what your code does" (report.h, CodeLook): a fact's value is null where it could not be read.
json look_json(const CodeLook& look) {
  json facts = json::array();
  const auto value = [](const std::optional<double>& v) { return v ? json(finite_or_zero(*v)) : json(nullptr); };
  for (const auto& row : look.facts)
    facts.push_back({{"key", row.key},
                     {"label", row.label},
                     {"yours", row.yours},
                     {"reference", row.reference},
                     {"yours_value", value(row.yours_value)},
                     {"reference_value", value(row.reference_value)}});
  json source = json::array();
  for (const auto& line : look.source_listing) {
    json instructions = json::array();
    for (const auto& instruction : line.instructions) instructions.push_back({{"text", instruction.text}, {"fp", instruction.fp}});
    source.push_back({{"location", line.location}, {"text", line.text}, {"instructions", instructions}});
  }
  return {{"function", look.function},   {"kernels", look.kernels},      {"facts", facts},
          {"listing_title", look.listing_title}, {"listing", look.listing}, {"source_listing", source},
          {"note", look.note},           {"counters", look.counters}};
}

json stage_seconds(const Report& report) {
  json stages = json::array();
  for (const auto& [stage, seconds] : report.stage_seconds) stages.push_back({{"stage", stage}, {"seconds", finite_or_zero(seconds)}});
  return stages;
}

// Gradescope's visibility words (its autograder spec: hidden, after_due_date, after_published, visible). The lab's
// "after_due_date" means shown once grades are out, which Gradescope calls after_published; its own after_due_date
// would show the hidden inputs to every student the moment the deadline passes, before grading is done.
std::string gradescope_visibility(Visibility visibility) {
  switch (visibility) {
    case Visibility::visible: return "visible";
    case Visibility::hidden: return "hidden";
    case Visibility::after_due_date: return "after_published";
  }
  return "hidden";
}

json timing_json(const Timing& t) {
  return {{"label", t.label}, {"median_s", t.median}, {"q1_s", t.q1}, {"q3_s", t.q3}, {"reps", t.seconds.size()},
          {"gflops", finite_or_zero(t.gflops)}, {"gbps", finite_or_zero(t.gbps)}};
}

// A count the machine did not give is null, never 0: "no counter" and "no misses" read differently.
json optional_number(const std::optional<double>& value) {
  return value && std::isfinite(*value) ? json(*value) : json(nullptr);
}

json counters_json(const CpuCounters& counters) {
  json sides = json::array();
  for (const auto& side : counters.sides)
    sides.push_back({{"label", side.label},
                     {"threads", side.threads},
                     {"cpu_seconds", finite_or_zero(side.cpu_seconds)},
                     {"page_faults", finite_or_zero(side.page_faults)},
                     {"flops", finite_or_zero(side.flops)},
                     {"cycles", optional_number(side.cycles)},
                     {"instructions", optional_number(side.instructions)},
                     {"cache_misses", optional_number(side.cache_misses)},
                     {"l1d_misses", optional_number(side.l1d_misses)},
                     {"branch_misses", optional_number(side.branch_misses)},
                     {"ipc", optional_number(side.ipc())},
                     {"cache_misses_per_kilo_instruction", optional_number(side.per_kilo_instruction(side.cache_misses))},
                     {"l1d_misses_per_kilo_instruction", optional_number(side.per_kilo_instruction(side.l1d_misses))},
                     {"cache_misses_per_flop", optional_number(side.per_flop(side.cache_misses))},
                     {"flops_per_cycle", optional_number(side.flops_per_cycle())},
                     {"gflops_per_cpu_second", optional_number(side.gflops_per_cpu_second())}});
  json rows = json::array();
  for (const auto& row : counter_rows(counters))
    rows.push_back({{"key", row.key}, {"label", row.label}, {"values", row.values}});
  return {{"sides", sides}, {"rows", rows}, {"unavailable", counters.unavailable}, {"skipped", counters.skipped}};
}

json tiers_json(const Measurement& m) {
  json tiers = json::array();
  for (const auto& tier : m.tiers) tiers.push_back({{"at", finite_or_zero(tier.at)}, {"points", finite_or_zero(tier.points)}});
  return tiers;
}

}  // namespace

json to_json(const Report& report) {
  json tests = json::array();
  for (const auto& test : report.tests) {
    json entry = {{"name", test.name},
                  {"kind", to_string(test.kind)},
                  {"status", to_string(test.verdict)},
                  {"score", finite_or_zero(test.score)},
                  {"max_score", finite_or_zero(test.max_score)},
                  {"details", test.details},
                  {"visibility", to_string(test.visibility)}};
    if (test.kind == TestKind::correctness) {
      json cases = json::array();
      for (const auto& c : test.cases)
        cases.push_back({{"name", c.name}, {"variant", c.variant}, {"status", to_string(c.verdict)}, {"details", c.details},
                         {"visibility", to_string(c.visibility)}});
      entry["cases"] = cases;
    }
    if (test.measurement) {
      const Measurement& m = *test.measurement;
      json compare = json::array();
      for (const auto& t : m.compare) compare.push_back(timing_json(t));
      entry["measurement"] = {{"candidate", timing_json(m.candidate)},
                              {"baseline", timing_json(m.baseline)},
                              {"compare", compare},
                              {"speedup", finite_or_zero(m.speedup)},
                              {"speedup_range", {finite_or_zero(m.speedup_low), finite_or_zero(m.speedup_high)}},
                              {"roofline_fraction", finite_or_zero(m.roofline_fraction)},
                              {"roofline_bound", m.roofline_bound},
                              {"metric_value", finite_or_zero(m.metric_value)},
                              {"metric_interval", {finite_or_zero(m.metric_low), finite_or_zero(m.metric_high)}},
                              {"within_noise", m.within_noise},
                              {"noise_retries", m.noise_retries},
                              {"outside_checked", m.outside_checked},
                              {"seconds", {{"setup", m.spent.setup},
                                           {"rounds", m.spent.rounds},
                                           {"round_count", m.spent.round_count},
                                           {"stopped_early", m.spent.stopped_early},
                                           {"checks", m.spent.checks},
                                           {"checked_rounds", m.spent.checked_rounds},
                                           {"compare", m.spent.compare},
                                           {"bound", m.spent.bound},
                                           {"cross_check", m.spent.cross_check},
                                           {"retries", m.spent.retries},
                                           {"counters", m.spent.counters}}},
                              {"noise_rule", m.within_noise ? within_noise_rule : ""},
                              {"full_marks_at", m.threshold_full},
                              {"metric", m.metric},
                              {"tiers", tiers_json(m)},
                              {"ceilings", {{"memory_gbps", finite_or_zero(m.ceiling_gbps)},
                                            {"compute_gflops", finite_or_zero(m.ceiling_gflops)},
                                            {"memory", m.memory_ceiling},
                                            {"compute", m.compute_ceiling},
                                            {"memory_reached", m.memory_reached},
                                            {"compute_reached", m.compute_reached}}}};
    }
    if (test.measurement && test.measurement->cpu_counters)
      entry["measurement"]["cpu_counters"] = counters_json(*test.measurement->cpu_counters);
    if (test.kind == TestKind::performance) entry["next_step"] = test.next_step;
    if (test.look) entry["look"] = look_json(*test.look);
    tests.push_back(entry);
  }
  const MachineInfo& mi = report.machine;
  json machine = {{"hostname", mi.hostname}, {"cpu", mi.cpu}, {"threads", mi.threads}, {"calibrated", mi.calibrated}};
  if (mi.calibrated) {
    machine["bandwidth_1t_gbps"] = mi.bandwidth_1t_gbps;
    machine["bandwidth_all_gbps"] = mi.bandwidth_all_gbps;
    machine["read_bandwidth_1t_gbps"] = mi.read_bandwidth_1t_gbps;
    machine["read_bandwidth_all_gbps"] = mi.read_bandwidth_all_gbps;
    machine["calibration_stable"] = mi.calibration_stable;
    machine["peak_fp64_gflops_1t"] = mi.peak_fp64_gflops_1t;
    machine["peak_fp64_gflops_all"] = mi.peak_fp64_gflops_all;
  }
  if (!mi.gpu.empty()) {
    machine["gpu"] = mi.gpu;
    machine["gpu_bandwidth_gbps"] = mi.gpu_bandwidth_gbps;
    machine["gpu_read_bandwidth_gbps"] = mi.gpu_read_bandwidth_gbps;
    machine["gpu_sgemm_tflops"] = mi.gpu_sgemm_tflops;
    machine["gpu_dgemm_tflops"] = mi.gpu_dgemm_tflops;
  }
  if (!mi.gpu_uuid.empty()) {  // the one GPU of several this grading ran on (grader batch --gpus)
    machine["gpu_index"] = mi.gpu_index;
    machine["gpu_uuid"] = mi.gpu_uuid;
  }
  return {{"schema", "grader-report/1"},
          {"lab", report.lab},
          {"lab_name", report.lab_name},
          {"title", report.title},
          {"submission", report.submission},
          {"seed", report.seed},
          {"status", report_status(report.verdict)},
          {"status_details", report.verdict_details},
          {"score", finite_or_zero(report.score)},
          {"max_score", finite_or_zero(report.max_score)},
          {"hidden_not_run", report.hidden_tests_skipped},
          {"warnings", report.warnings},
          {"candidate_output", report.candidate_output},
          {"isolation", report.isolation},
          {"build_log", report.build_log},
          {"machine", machine},
          {"wall_seconds", report.wall_seconds},
          {"stage_seconds", stage_seconds(report)},
          {"facts_unavailable", report.facts_unavailable},
          {"sanitizer", report.sanitizer_tool.empty() ? json(nullptr)
                                                      : json{{"tool", report.sanitizer_tool}, {"program", report.sanitizer_program},
                                                             {"errors", report.sanitizer_errors},
                                                             {"output", report.sanitizer_output}}},
          {"tests", tests}};
}

json to_gradescope(const Report& report) {
  json tests = json::array();
  for (const auto& test : report.tests) {
    // An item's details name its first failing case; when that case is hidden, say only that one failed.
    std::string details = test.details;
    for (const auto& c : test.cases)
      if (c.visibility != Visibility::visible && c.verdict != Verdict::passed && details.rfind(c.name + " [", 0) == 0)
        details = "a hidden case failed [" + c.variant + "]: " + std::string(info(c.verdict).label);
    std::string output = std::string(info(test.verdict).label) + (details.empty() ? "" : ": " + details);
    for (const auto& c : test.cases)
      if (c.verdict != Verdict::passed && c.visibility == Visibility::visible)
        output += "\n  " + c.name + " [" + c.variant + "]: " + std::string(info(c.verdict).label) + ": " + c.details;
    if (test.look) {
      output += "\nwhat your code does" + (test.look->function.empty() ? std::string() : " (" + test.look->function + ")") +
                ": yours / reference";
      for (const auto& row : test.look->facts)
        if (worth_showing(row))
          output += "\n  " + row.label + ": " + (row.yours.empty() ? "-" : row.yours) + " / " +
                    (row.reference.empty() ? "-" : row.reference);
      if (!test.look->counters.empty()) output += "\n  " + test.look->counters;
    }
    if (!test.next_step.empty()) output += "\nnext step: " + test.next_step;
    const bool ok = test.verdict == Verdict::passed;
    json tags = {std::string(to_string(test.kind)), std::string(to_string(test.verdict))};
    if (test.measurement && test.measurement->within_noise) tags.push_back("within_noise");
    tests.push_back({{"name", test.name},
                     {"score", finite_or_zero(test.score)},  // NaN would be written as null, which Gradescope refuses
                     {"max_score", finite_or_zero(test.max_score)},
                     {"status", ok ? "passed" : "failed"},
                     {"output", output},
                     // Build logs and program output hold '<', '*' and '_': shown as written, never as HTML or markdown.
                     {"output_format", "text"},
                     {"tags", tags},
                     {"visibility", gradescope_visibility(test.visibility)}});
  }
  // "lab1-matvec: graded, 20 / 80 points; first failure: wrong answer in row pointers": the words of the report's
  // status and of the items' verdicts (report/verdict.h), never "passed" for a submission that lost points.
  // A grading that stopped early says so in words ("build error"), as the text report does.
  std::string summary = report.lab_name + ": " +
                        std::string(report.verdict == Verdict::passed ? graded_status : info(report.verdict).label);
  if (report.verdict == Verdict::passed) {
    summary += ", " + points_out_of(finite_or_zero(report.score), finite_or_zero(report.max_score)) + " points";
    for (const auto& test : report.tests)
      if (info(test.verdict).student_fault || test.verdict == Verdict::internal_error) {
        summary += "; first failure: " + std::string(info(test.verdict).label) + " in " + test.name;
        break;
      }
  }
  if (!report.verdict_details.empty()) summary += "\n" + report.verdict_details;
  if (!report.build_log.empty() && report.verdict == Verdict::build_error) summary += "\n\n" + report.build_log;
  // Warnings (a busy machine, an unsettled calibration) say why figures may be off: students see them too.
  for (const auto& warning : report.warnings) summary += "\nwarning: " + warning;
  const double seconds = finite_or_zero(report.wall_seconds);
  return {{"score", finite_or_zero(report.score)},
          {"execution_time", static_cast<long>(std::ceil(std::clamp(seconds, 0.0, 1e9)))},
          {"output", summary},
          {"output_format", "text"},
          {"test_output_format", "text"},
          {"test_name_format", "text"},
          {"visibility", "visible"},
          {"stdout_visibility", "hidden"},
          {"leaderboard", gradescope_leaderboard(report)},
          {"tests", tests}};
}

std::string json_text(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace) + "\n";
}

Report internal_error_report(const std::string& lab, const std::string& submission, const std::string& what) {
  Report report;
  report.lab = lab;
  report.lab_name = lab;
  report.submission = submission;
  report.verdict = Verdict::internal_error;
  report.verdict_details = "the grader failed, not the submission: " + what;
  return report;
}

}  // namespace grader
