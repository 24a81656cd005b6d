#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "report/writers.h"
#include "core/utf8.h"

namespace grader {

namespace {

struct Style {
  bool on;
  std::string paint(const std::string& text, const char* code) const {
    return on ? std::string("\033[") + code + "m" + text + "\033[0m" : text;
  }
  std::string good(const std::string& t) const { return paint(t, "32"); }
  std::string bad(const std::string& t) const { return paint(t, "31"); }
  std::string warn(const std::string& t) const { return paint(t, "33"); }
  std::string dim(const std::string& t) const { return paint(t, "2"); }
  std::string bold(const std::string& t) const { return paint(t, "1"); }
};

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

std::string points(double score, double max) {
  auto shown = [](double v) { return std::fabs(v - std::round(v)) < 0.005 ? format("%.0f", v) : format("%.1f", v); };
  return shown(score) + " / " + shown(max);
}

std::string duration(double seconds) {
  if (seconds >= 1) return format("%.3f s", seconds);
  if (seconds >= 1e-3) return format("%.2f ms", seconds * 1e3);
  return format("%.1f us", seconds * 1e6);
}

// `text` followed by spaces to `width`, and never by none: a long value must not run into the next column.
std::string pad(std::string text, std::size_t width) {
  text.append(text.size() < width ? width - text.size() : 1, ' ');
  return text;
}

// The width of the name column for the tests of one kind: `least`, or wider when a name needs it (so the
// points stay in one column).
std::size_t name_width(const Report& report, TestKind kind, std::size_t least) {
  std::size_t width = least;
  for (const auto& test : report.tests)
    if (test.kind == kind) width = std::max(width, test.name.size() + 2);
  return width;
}

// "what your code does": the timed variant's facts beside the reference's (inspect/look.h), under its item.
void write_look(std::ostringstream& out, const Style& style, const CodeLook& look) {
  std::string what = look.function.empty() ? "" : " (" + look.function;
  if (!look.kernels.empty()) {
    what += " -> ";
    for (std::size_t i = 0; i < look.kernels.size(); ++i) what += (i ? ", " : "") + look.kernels[i];
  }
  if (!what.empty()) what += ")";
  out << "        " << style.bold("what your code does") << what << "\n";
  std::size_t label_width = 30;
  for (const auto& row : look.facts) label_width = std::max(label_width, row.label.size() + 2);
  bool header = false;
  for (const auto& row : look.facts) {
    if (!worth_showing(row)) continue;
    if (!header) {
      out << "          " << pad("", label_width) << pad("yours", 18) << style.dim("reference") << "\n";
      header = true;
    }
    out << "          " << pad(row.label, label_width) << pad(row.yours.empty() ? "-" : row.yours, 18)
        << style.dim(row.reference.empty() ? "-" : row.reference) << "\n";
  }
  if (!look.note.empty()) out << "          " << style.dim(look.note) << "\n";
  if (!look.counters.empty()) out << "          " << style.dim(look.counters) << "\n";
}

// The counters the grader read over one more call of each side (measure/cpu_counters.h), under the facts.
void write_counters(std::ostringstream& out, const Style& style, const CpuCounters& counters) {
  const auto rows = counter_rows(counters);
  if (!rows.empty()) {
    out << "          " << pad("counted over one more call", 40);
    for (const auto& side : counters.sides) out << pad(side.label, 26);
    out << "\n";
    for (const auto& row : rows) {
      out << "          " << pad(row.label, 40);
      for (const auto& value : row.values) out << pad(value, 26);
      out << "\n";
    }
  }
  if (!counters.skipped.empty()) out << "          " << style.dim(counters.skipped) << "\n";
  if (!counters.unavailable.empty())
    out << "          " << style.dim((rows.empty() ? "no counts: " : "only software counts: ") + counters.unavailable) << "\n";
}

std::string marker(const Style& style, Verdict verdict) {
  switch (verdict) {
    case Verdict::passed: return style.good("PASS");
    case Verdict::below_threshold: return style.warn("PART");
    case Verdict::not_run: return style.dim("----");
    default: return style.bad("FAIL");
  }
}

// Three significant digits at least, never fewer than two decimals: a small kernel's 0.0042 GB/s is not "0.00".
std::string rate(double value) { return value >= 1 ? format("%.2f", value) : format("%.3g", value); }

std::string rates(const Timing& t) {
  std::string line = pad(duration(t.median), 11);
  line += pad(t.gflops > 0 ? rate(t.gflops) : "-", 9);
  line += pad(t.gbps > 0 ? rate(t.gbps) : "-", 9);
  return line;
}

}  // namespace

std::string points_out_of(double score, double max) { return points(score, max); }

std::string render_text(const Report& report, bool colour) {
  Style style{colour};
  std::ostringstream out;
  out << style.bold(report.lab_name + ": " + report.title) << "\n";
  out << "submission " << report.submission << "  seed " << report.seed << "  (replay with --seed " << report.seed << ")\n";
  const MachineInfo& m = report.machine;
  out << "machine " << m.hostname << ", " << m.cpu << ", " << m.threads << " threads";
  if (m.calibrated)
    out << "; calibrated: " << format("%.1f", m.read_bandwidth_1t_gbps) << " GB/s read, "
        << format("%.1f", m.bandwidth_1t_gbps) << " read-write, " << format("%.1f", m.peak_fp64_gflops_1t)
        << " GFLOP/s on 1 thread; " << format("%.1f", m.read_bandwidth_all_gbps) << " GB/s read, "
        << format("%.1f", m.bandwidth_all_gbps) << " read-write, " << format("%.1f", m.peak_fp64_gflops_all)
        << " GFLOP/s on all" << (m.calibration_stable ? "" : " (unstable: calibrated on a busy machine)");
  out << "\n";
  if (!m.gpu.empty())
    out << "gpu " << m.gpu << "; calibrated: " << format("%.0f", m.gpu_read_bandwidth_gbps) << " GB/s read, "
        << format("%.0f", m.gpu_bandwidth_gbps) << " GB/s device copy, "
        << format("%.1f", m.gpu_sgemm_tflops) << " TFLOP/s SGEMM, " << format("%.1f", m.gpu_dgemm_tflops)
        << " TFLOP/s DGEMM\n";
  if (!m.gpu_uuid.empty()) out << "graded on GPU " << m.gpu_index << " (" << m.gpu_uuid << ")\n";

  if (report.verdict != Verdict::passed) {
    out << "\n" << style.bad(std::string(info(report.verdict).label)) << ": " << report.verdict_details << "\n";
    if (report.verdict == Verdict::build_error && !report.build_log.empty()) out << "\n" << report.build_log << "\n";
  }

  bool any_correctness = false, any_performance = false;
  for (const auto& test : report.tests) {
    (test.kind == TestKind::correctness ? any_correctness : any_performance) = true;
  }
  const std::size_t correctness_width = name_width(report, TestKind::correctness, 34);
  const std::size_t performance_width = name_width(report, TestKind::performance, 56);
  if (any_correctness) {
    out << "\n" << style.bold("correctness") << "\n";
    for (const auto& test : report.tests) {
      if (test.kind != TestKind::correctness) continue;
      // A failing item's cases are listed below it, so its line says how many failed rather than repeat the first.
      std::vector<const CaseResult*> failing;
      for (const auto& c : test.cases)
        if (c.verdict != Verdict::passed && c.verdict != Verdict::not_run) failing.push_back(&c);
      std::string summary = test.details;
      if (!failing.empty())
        summary = std::to_string(failing.size()) + " of " + std::to_string(test.cases.size()) + " runs failed:";
      out << "  " << marker(style, test.verdict) << "  " << pad(test.name, correctness_width) << pad(points(test.score, test.max_score), 10)
          << "  " << (test.verdict == Verdict::passed ? style.dim(summary) : summary) << "\n";
      constexpr std::size_t listed = 4;
      for (std::size_t i = 0; i < failing.size() && i < listed; ++i) {
        const CaseResult& c = *failing[i];
        out << "        " << c.name << " [" << c.variant << "]: " << info(c.verdict).label << ": " << c.details << "\n";
      }
      if (failing.size() > listed)
        out << "        ... and " << failing.size() - listed << " more failing run(s), not shown (--format json lists every one)\n";
    }
  }
  if (any_performance) {
    out << "\n" << style.bold("performance") << style.dim("  (median time; GFLOP/s; GB/s; roofline; speedup [quartile range])") << "\n";
    for (const auto& test : report.tests) {
      if (test.kind != TestKind::performance) continue;
      out << "  " << marker(style, test.verdict) << "  " << pad(test.name, performance_width) << pad(points(test.score, test.max_score), 10)
          << "\n";
      if (test.measurement) {
        const Measurement& me = *test.measurement;
        // The label column fits the longest label ("candidate matmul nthreads=16"), so the figures line up.
        std::size_t label_width = std::max({std::size_t{26}, me.candidate.label.size() + 2, me.baseline.label.size() + 2});
        // A comparison row that failed carries its reason in the label: that one may run past the column.
        for (const auto& t : me.compare)
          if (t.label.size() < 40) label_width = std::max(label_width, t.label.size() + 2);
        out << "        " << pad(me.candidate.label, label_width) << rates(me.candidate)
            << pad(me.roofline_fraction > 0 ? format("%.0f%%", 100 * me.roofline_fraction) : "-", 7)
            << format("%.2fx", me.speedup) << " [" << format("%.2f", me.speedup_low) << "-" << format("%.2f", me.speedup_high)
            << "]\n";
        out << "        " << pad(me.baseline.label, label_width) << rates(me.baseline) << "\n";
        for (const auto& t : me.compare)
          out << "        " << pad(t.label, label_width) << rates(t) << style.dim("(for comparison)") << "\n";
        if (!me.roofline_bound.empty()) out << "        " << style.dim("roofline bound: " + me.roofline_bound) << "\n";
        if (me.within_noise) out << "        " << style.warn("within noise") << " (the details below say which rule scored it)\n";
      }
      if (!test.details.empty()) out << "        " << test.details << "\n";
      if (test.look) write_look(out, style, *test.look);
      if (test.measurement && test.measurement->cpu_counters) write_counters(out, style, *test.measurement->cpu_counters);
      if (!test.next_step.empty()) out << "        " << style.bold("next step: ") << test.next_step << "\n";
    }
    if (!report.facts_unavailable.empty())
      out << "  " << style.dim("what your code does is not shown: " + report.facts_unavailable) << "\n";
  }

  if (!report.candidate_output.empty() && report.sanitizer_tool.empty()) {
    out << "\n" << style.bold("your program printed") << style.dim(" (the start of it)") << "\n";
    std::istringstream lines(report.candidate_output);
    std::string line;
    for (int count = 0; std::getline(lines, line) && count < 20; ++count) out << "  | " << line << "\n";
  }
  if (!report.sanitizer_tool.empty()) {
    out << "\n" << style.bold(report.sanitizer_program + " (" + report.sanitizer_tool + ")") << ": ";
    if (report.sanitizer_errors < 0) out << "no summary printed\n";
    else if (report.sanitizer_errors == 0) out << style.good("no errors") << "\n";
    else out << style.bad(std::to_string(report.sanitizer_errors) + " error(s)") << "\n" << report.sanitizer_output << "\n";
  }

  out << "\n" << style.bold("total " + points(report.score, report.max_score)) << "\n";
  for (const auto& warning : report.warnings) out << style.warn("warning: ") << warning << "\n";
  if (report.hidden_tests_skipped > 0)
    out << report.hidden_tests_skipped << " hidden case(s) or item(s) were not run here; they run when your work is graded.\n";
  if (!report.isolation.empty()) out << style.dim("isolation: " + report.isolation) << "\n";
  // Build logs, file names and program output are the student's or the compiler's bytes: a terminal, a feedback
  // file and every later reader get well-formed UTF-8.
  return valid_utf8(out.str());
}

}  // namespace grader
