#include "report/report.h"

#include <cmath>
#include <functional>
#include <sstream>

namespace grader {

std::string_view to_string(TestKind kind) { return kind == TestKind::correctness ? "correctness" : "performance"; }

bool worth_showing(const FactRow& row) {
  const bool yours_zero = !row.yours_value || *row.yours_value == 0;
  const bool reference_zero = !row.reference_value || *row.reference_value == 0;
  return !(yours_zero && reference_zero);
}

void sum_scores(Report& report) {
  report.score = 0;
  report.max_score = 0;
  for (const auto& test : report.tests) {
    report.score += test.score;
    report.max_score += test.max_score;
  }
}

std::optional<double> CounterSet::ipc() const {
  if (!cycles || !instructions || *cycles <= 0) return std::nullopt;
  return *instructions / *cycles;
}

std::optional<double> CounterSet::per_kilo_instruction(std::optional<double> count) const {
  if (!count || !instructions || *instructions <= 0) return std::nullopt;
  return 1000 * *count / *instructions;
}

std::optional<double> CounterSet::per_flop(std::optional<double> count) const {
  if (!count || flops <= 0) return std::nullopt;
  return *count / flops;
}

std::optional<double> CounterSet::flops_per_cycle() const {
  if (!cycles || *cycles <= 0 || flops <= 0) return std::nullopt;
  return flops / *cycles;
}

namespace {

std::string counter_figure(std::optional<double> value, int digits) {
  if (!value || !std::isfinite(*value)) return "-";
  std::ostringstream text;
  text.precision(digits);
  text << std::fixed << *value;
  return text.str();
}

}  // namespace

std::vector<CounterRow> counter_rows(const CpuCounters& counters) {
  using Figure = std::function<std::optional<double>(const CounterSet&)>;
  const struct {
    const char* key;
    const char* label;
    int digits;
    Figure figure;
  } figures[] = {
      {"ipc", "instructions per cycle", 2, [](const CounterSet& s) { return s.ipc(); }},
      {"flops_per_cycle", "FLOP per cycle (all threads)", 2, [](const CounterSet& s) { return s.flops_per_cycle(); }},
      {"gflops_per_cpu_second", "GFLOP/s per CPU second", 2, [](const CounterSet& s) { return s.gflops_per_cpu_second(); }},
      {"cache_misses_per_kilo_instruction", "last-level cache misses / 1000 instr", 2,
       [](const CounterSet& s) { return s.per_kilo_instruction(s.cache_misses); }},
      {"cache_misses_per_flop", "last-level cache misses / FLOP", 4,
       [](const CounterSet& s) { return s.per_flop(s.cache_misses); }},
      {"l1d_misses_per_kilo_instruction", "L1 data misses / 1000 instr", 2,
       [](const CounterSet& s) { return s.per_kilo_instruction(s.l1d_misses); }},
      {"branch_misses_per_kilo_instruction", "branch misses / 1000 instr", 2,
       [](const CounterSet& s) { return s.per_kilo_instruction(s.branch_misses); }},
      {"instructions", "instructions (millions)", 2,
       [](const CounterSet& s) { return s.instructions ? std::optional<double>(*s.instructions / 1e6) : std::nullopt; }},
      {"cpu_ms", "CPU time, all threads (ms)", 3,
       [](const CounterSet& s) { return s.threads > 0 ? std::optional<double>(s.cpu_seconds * 1e3) : std::nullopt; }},
      {"page_faults", "page faults", 0,
       [](const CounterSet& s) { return s.threads > 0 ? std::optional<double>(s.page_faults) : std::nullopt; }},
  };
  std::vector<CounterRow> rows;
  for (const auto& figure : figures) {
    CounterRow row{figure.key, figure.label, {}};
    bool any = false;
    for (const auto& side : counters.sides) {
      const std::optional<double> value = figure.figure(side);
      any = any || value.has_value();
      row.values.push_back(counter_figure(value, figure.digits));
    }
    if (any) rows.push_back(std::move(row));
  }
  return rows;
}

std::optional<double> CounterSet::gflops_per_cpu_second() const {
  if (threads == 0 || cpu_seconds <= 0 || flops <= 0) return std::nullopt;
  return flops / cpu_seconds / 1e9;
}

bool Report::all_passed() const {
  if (verdict != Verdict::passed) return false;
  for (const auto& test : tests)
    if (test.verdict != Verdict::passed && test.verdict != Verdict::below_threshold && test.verdict != Verdict::not_run)
      return false;
  return true;
}

}  // namespace grader
