#include "spec/spec_checks.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "data/manifest.h"
#include "spec/spec_reader.h"

namespace grader {

namespace {

constexpr double largest_size = 1099511627776.0;  // 2^40: no machine holds an array that long
constexpr double most_threads = 1024;

std::string thread_note(double threads) { return " (with threads = " + number_text(threads) + ")"; }

// The thread counts a lab must make sense for: 1, 2, 3, 4, 6, 8, ... 1024.
std::vector<double> thread_counts() {
  std::vector<double> counts;
  for (double t = 1; t <= most_threads; t *= 2) {
    counts.push_back(t);
    if (t >= 2 && t * 1.5 <= most_threads) counts.push_back(t * 1.5);
  }
  return counts;
}

// Evaluates `params` for `threads` and checks each value; returns every name's value for the expressions after.
// `work` names the parameters that size a benchmark's work (read by `flops` or `bytes`): those must be at least 1.
// Elsewhere 0 is allowed: an empty input is a fair correctness case, and a harness may read 0/1 as a switch.
Variables checked_params(const std::vector<Param>& params, double threads, const SourcePosition& where,
                         const std::string& owner, const std::set<std::string>& work = {}) {
  Variables values;
  try {
    values = evaluate_params(params, {{"threads", threads}});
  } catch (const ExprEvalError& error) {
    throw SpecError(where, owner + "'s parameters have no value" + thread_note(threads) + ": " + error.what());
  }
  for (const Param& p : params) {
    const double v = values.at(p.name);
    if (!std::isfinite(v))
      throw SpecError(where, "parameter '" + p.name + "' of " + owner + " is not a finite number" + thread_note(threads));
    if (p.real) continue;
    // Harnesses read sizes as integers: 2.5 would be rounded without a word, 0 or -3 would fail in the harness.
    if (v != std::floor(v))
      throw SpecError(where, "parameter '" + p.name + "' of " + owner + " is " + number_text(v) + thread_note(threads) +
                                 ", not a whole number; use floor() or ceil() to say which, or write a decimal number "
                                 "(like 0.5) for a parameter that is not a size");
    const double smallest = work.count(p.name) ? 1 : 0;
    if (v < smallest || v > largest_size)
      throw SpecError(where, "parameter '" + p.name + "' of " + owner + " is " + number_text(v) + thread_note(threads) +
                                 (smallest > 0 ? "; it sizes the timed work ('flops' or 'bytes' read it), so it must be "
                                                 "from 1 to 2^40"
                                               : "; a whole-number parameter must be from 0 to 2^40 (write a decimal "
                                                 "number, like -1.0, for one that is not a size or a count)"));
  }
  return values;
}

double checked_value(const Expr& expr, const Variables& values, const SourcePosition& where, const std::string& what,
                     double threads) {
  try {
    return expr.evaluate(values);  // refuses NaN and infinities, naming the expression
  } catch (const ExprEvalError& error) {
    throw SpecError(where, what + " has no value" + thread_note(threads) + ": " + error.what());
  }
}

void check_performance_item(const PerformanceItem& item, double threads) {
  const std::string owner = "benchmark '" + item.name + "'";
  std::set<std::string> work;
  for (const auto* expr : {&item.flops, &item.bytes})
    if (*expr)
      for (const std::string& name : (*expr)->names()) work.insert(name);
  const Variables values = checked_params(item.params, threads, item.where, owner, work);
  if (!item.baseline.params.empty()) {
    std::vector<Param> merged = item.params;
    for (const Param& p : item.baseline.params)
      for (Param& m : merged)
        if (m.name == p.name) m = p;
    checked_params(merged, threads, item.where, owner + "'s baseline", work);
  }
  for (auto [key, expr] : {std::pair{"flops", &item.flops}, std::pair{"bytes", &item.bytes}}) {
    if (!*expr) continue;
    const double v = checked_value(**expr, values, item.where, "'" + std::string(key) + "' of " + owner, threads);
    if (v < 0) throw SpecError(item.where, "'" + std::string(key) + "' of " + owner + " is negative" + thread_note(threads));
  }
  if (checked_value(item.cpu_threads, values, item.where, "'cpu_threads' of " + owner, threads) < 1)
    throw SpecError(item.where, "'cpu_threads' of " + owner + " is below 1" + thread_note(threads));
  // Tiers may read the calibrated scaling (cpu_scaling, memory_scaling: from 1, where all threads do no
  // more than one, up to `threads`); they must ascend for every value a machine the item can be timed on
  // may have, that is where its requires_machine holds.
  for (double scaling : {1.0, 1.2, 1.4, 1.5, 1.6, 1.8, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 64.0, 1024.0}) {
    if (scaling > threads) break;
    Variables scope = values;
    scope["cpu_scaling"] = scope["memory_scaling"] = scaling;
    const bool timed_here = std::all_of(item.requires_machine.begin(), item.requires_machine.end(),
                                        [&](const auto& need) { return scope.at(need.first) + 1e-9 >= need.second; });
    if (!timed_here) continue;
    const std::string note = thread_note(threads) + (scaling < threads ? " and scaling " + number_text(scaling) : "");
    std::optional<double> previous;
    for (const Tier& tier : item.tiers) {
      const double at = checked_value(tier.at, scope, tier.where, "a tier's 'at' of " + owner, threads);
      if (previous && at <= *previous)
        throw SpecError(tier.where, "tiers must ascend: 'at' = " + tier.at.text() + " is " + number_text(at) + note +
                                        ", not above the earlier tier's " + number_text(*previous));
      previous = at;
    }
  }
}

}  // namespace

void check_spec_values(const LabSpec& spec) {
  if (spec.correctness.empty() && spec.performance.empty())
    throw SpecError({spec.file.string(), 1, 1}, "the lab has no [[correctness]] or [[performance]] item: nothing to grade");
  for (double threads : thread_counts()) {
    for (const CorrectnessItem& item : spec.correctness)
      for (const CaseSpec& c : item.cases)
        if (c.dataset.empty()) checked_params(c.params, threads, c.where, "case '" + c.name + "'");
    for (const PerformanceItem& item : spec.performance) check_performance_item(item, threads);
  }
}

void check_spec_datasets(const LabSpec& spec, const std::filesystem::path& root) {
  std::optional<Manifest> manifest;
  const std::filesystem::path folder = root / "datasets" / spec.name();
  for (const CorrectnessItem& item : spec.correctness) {
    for (const CaseSpec& c : item.cases) {
      if (c.dataset.empty()) continue;
      if (!manifest) {
        try {
          manifest = load_manifest(folder);
        } catch (const std::exception& error) {
          throw SpecError(c.where, "case '" + c.name + "' reads dataset '" + c.dataset + "', but the lab's datasets cannot be read: " + error.what());
        }
      }
      if (manifest->find(c.dataset) == nullptr)
        throw SpecError(c.where, "case '" + c.name + "' reads dataset '" + c.dataset + "', which " +
                                     (folder / "manifest.toml").string() + " does not list");
    }
  }
}

}  // namespace grader
