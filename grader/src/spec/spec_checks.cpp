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

// What every parameter of the lab must satisfy, gathered once from the whole lab.
struct ParamRules {
  // Names some benchmark's `flops`, `bytes` or `cpu_threads` reads: they size work or its threads, so they are whole
  // numbers from 1 wherever they are given, in cases too (lab1's harness refuses m = 0, lab3's nthreads = 0; a size of
  // 2.5 would be rounded without a word).
  std::set<std::string> sizes;
  // Names the harness reads with params.integer(): whole numbers, however lab.toml writes them (n = 2.5 once reached
  // the harness, which rounded it).
  const LabSources* sources = nullptr;
  // Every benchmark's `bytes`, the fewest bytes one call must move, so at least the memory its data takes: a case or
  // benchmark that gives every name one of them reads must fit the lab's memory limit.
  std::vector<std::pair<std::string, const Expr*>> bytes;  // {benchmark's name, its bytes}
  double memory_bytes = 0;
  std::size_t memory_mb = 0;

  bool whole(const Param& p) const {
    return !p.real || sizes.count(p.name) != 0 || (sources != nullptr && sources->reads_as_integer(p.name));
  }
};

ParamRules param_rules(const LabSpec& spec, const LabSources& sources) {
  ParamRules rules;
  rules.sources = &sources;
  for (const PerformanceItem& item : spec.performance) {
    for (const auto* expr : {&item.flops, &item.bytes})
      if (*expr)
        for (const std::string& name : (*expr)->names()) rules.sizes.insert(name);
    for (const std::string& name : item.cpu_threads.names()) rules.sizes.insert(name);
    if (item.bytes) rules.bytes.emplace_back(item.name, &*item.bytes);
  }
  rules.memory_mb = spec.limits.memory_mb;
  rules.memory_bytes = static_cast<double>(spec.limits.memory_mb) * 1024 * 1024;
  return rules;
}

std::string gigabytes(double bytes) { return number_text(std::round(bytes / 1e7) / 100) + " GB"; }

// Evaluates `params` for `threads` and checks each value; returns every name's value for the expressions after.
// Every value is finite and at most 2^40 in size. Whole-number parameters (written as integers or expressions,
// sizes, and those the harness reads as integers) are from 0 to 2^40, sizes from 1; together they multiply to at
// most 2^57, so an array indexed by all of them still has a byte count that fits 64 bits (m = n = 2^32 wrapped a
// harness's m*n*8 to 0). Where the values give a benchmark's `bytes`, it fits the lab's memory limit.
// 0 is allowed for what is no size: a harness may read 0/1 as a switch.
Variables checked_params(const std::vector<Param>& params, double threads, const SourcePosition& where,
                         const std::string& owner, const ParamRules& rules) {
  Variables values;
  try {
    values = evaluate_params(params, {{"threads", threads}});
  } catch (const ExprEvalError& error) {
    throw SpecError(where, owner + "'s parameters have no value" + thread_note(threads) + ": " + error.what());
  }
  double product = 1;
  std::string factors;
  for (const Param& p : params) {
    const double v = values.at(p.name);
    const std::string value = "parameter '" + p.name + "' of " + owner + " is " + number_text(v) + thread_note(threads);
    if (!std::isfinite(v))
      throw SpecError(where, "parameter '" + p.name + "' of " + owner + " is not a finite number" + thread_note(threads));
    if (std::fabs(v) > largest_size)
      throw SpecError(where, value + "; a parameter must be at most 2^40 (1099511627776) in size");
    if (!rules.whole(p)) continue;
    const bool size = rules.sizes.count(p.name) != 0;
    const std::string why = size ? "it sizes the timed work (a benchmark's 'flops', 'bytes' or 'cpu_threads' reads it)"
                                 : p.real ? "the harness reads it with params.integer()" : "it is written as a whole number";
    if (v != std::floor(v))
      throw SpecError(where, value + ", not a whole number, and " + why +
                                 "; use floor() or ceil() to say which, or give a whole number");
    if (v < (size ? 1 : 0))
      throw SpecError(where, value + (size ? "; " + why + ", so it must be from 1 to 2^40"
                                           : "; a whole-number parameter must be from 0 to 2^40 (write a decimal "
                                             "number, like -1.0, for one that is not a size or a count)"));
    product *= std::max(v, 1.0);
    factors += (factors.empty() ? "" : "*") + p.name;
  }
  constexpr double largest_product = 144115188075855872.0;  // 2^57: times 8 bytes, 2^60, still inside int64
  if (product > largest_product)
    throw SpecError(where, "the whole-number parameters of " + owner + " multiply to " + number_text(product) + " (" +
                               factors + ")" + thread_note(threads) + ", more than 2^57: an array of that many 8-byte "
                               "values has a byte count no 64-bit integer holds");
  for (const auto& [benchmark, bytes] : rules.bytes) {
    const std::vector<std::string> reads = bytes->names();
    if (!std::all_of(reads.begin(), reads.end(), [&](const std::string& n) { return values.count(n) != 0; })) continue;
    double need = 0;
    try {
      need = bytes->evaluate(values);
    } catch (const ExprEvalError&) {
      continue;  // a benchmark's own 'bytes' is checked with its own words below
    }
    if (need > rules.memory_bytes)
      throw SpecError(where, owner + " needs at least " + gigabytes(need) + " of data (benchmark '" + benchmark +
                                 "''s 'bytes' = " + bytes->text() + thread_note(threads) + "), more than the lab's memory "
                                 "limit of " + std::to_string(rules.memory_mb) + " MB ([limits] memory_mb): no run "
                                 "could hold it");
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

void check_performance_item(const PerformanceItem& item, double threads, const ParamRules& rules) {
  const std::string owner = "benchmark '" + item.name + "'";
  const Variables values = checked_params(item.params, threads, item.where, owner, rules);
  if (!item.baseline.params.empty()) {
    std::vector<Param> merged = item.params;
    for (const Param& p : item.baseline.params)
      for (Param& m : merged)
        if (m.name == p.name) m = p;
    checked_params(merged, threads, item.where, owner + "'s baseline", rules);
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

void check_spec_values(const LabSpec& spec, const LabSources& sources) {
  const ParamRules rules = param_rules(spec, sources);
  if (spec.correctness.empty() && spec.performance.empty())
    throw SpecError({spec.file.string(), 1, 1}, "the lab has no [[correctness]] or [[performance]] item: nothing to grade");
  for (double threads : thread_counts()) {
    for (const CorrectnessItem& item : spec.correctness)
      for (const CaseSpec& c : item.cases)
        if (c.dataset.empty()) checked_params(c.params, threads, c.where, "case '" + c.name + "'", rules);
    for (const PerformanceItem& item : spec.performance) check_performance_item(item, threads, rules);
  }
}

void check_spec_datasets(const LabSpec& spec, const std::filesystem::path& root) {
  const LabSources sources = LabSources::read(spec.dir, spec.build);
  const ParamRules rules = param_rules(spec, sources);
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
      const DatasetEntry* entry = manifest->find(c.dataset);
      if (entry == nullptr)
        throw SpecError(c.where, "case '" + c.name + "' reads dataset '" + c.dataset + "', which " +
                                     (folder / "manifest.toml").string() + " does not list");
      // The manifest's parameters reach the harness as a generated case's do, so they obey the same rules.
      std::vector<Param> params;
      for (const DatasetParam& p : entry->params)
        params.push_back({p.name, Expr::constant(p.value), p.value != std::floor(p.value)});
      checked_params(params, 1, c.where, "case '" + c.name + "' (dataset '" + c.dataset + "')", rules);
    }
  }
}

}  // namespace grader
