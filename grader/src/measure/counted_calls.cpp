#include "measure/counted_calls.h"

#include "measure/cpu_counters.h"
#include "measure/statistics.h"

namespace grader {

namespace {

// The longest call counted: lab 4's naive 2048^3 yardstick takes seconds a call, which a figure for the report is
// not worth in every grading of the class.
constexpr double longest_counted_call = 1.0;

}  // namespace

bool count_calls(TimedSides& sides, const Rounds& rounds, Measurement& m, PartnerCounts& partners) {
  const PerformanceItem& item = sides.item;
  MeasureContext& context = sides.context;
  const Variables& scope = sides.scope;
  FreshCalls& fresh = sides.fresh;
  Worker& cand = sides.cand;
  Worker& j = sides.judge;
  Worker* baseline = sides.baseline;
  const std::string& baseline_variant = sides.baseline_variant;
  const bool baseline_is_candidate_code = sides.baseline_is_candidate_code;
  const std::vector<Timing>& yardsticks = rounds.yardsticks;
  const std::vector<std::string>& yardstick_variants = rounds.yardstick_variants;
  // The partners' yardsticks are counted here too (one call each, on the judge), each for its partner's report.
  partners.counts.assign(yardsticks.size(), std::nullopt);
  partners.skipped.assign(yardsticks.size(), "");
  if (!context.count_cpu) return true;
  const auto counters_began = measure_clock::now();
  CpuCounters counters;
  const double flops = item.flops ? item.flops->evaluate(scope) : 0;
  struct Side {
    Worker* worker;
    const std::string* variant;
    const Timing* timing;
    int partner;  // the partner whose yardstick this is, or -1: the item's own sides
  };
  std::vector<Side> counted = {{&cand, &item.variant, &m.candidate, -1}, {baseline, &baseline_variant, &m.baseline, -1}};
  for (std::size_t i = 0; i < yardsticks.size(); ++i)
    counted.push_back({&j, &yardstick_variants[i], &yardsticks[i], static_cast<int>(i)});
  for (const auto& [worker, variant, timing, partner] : counted) {
    CounterSet counts;
    counts.label = timing->label;
    counts.flops = flops;
    const double call_seconds = summarize(timing->seconds).median;
    if (call_seconds > longest_counted_call) {
      std::string& skipped = partner < 0 ? counters.skipped : partners.skipped[static_cast<std::size_t>(partner)];
      skipped += (skipped.empty() ? "" : "; ") + counts.label + " takes " + measure_fixed(call_seconds, 1) +
                 " s a call: not counted";
      continue;
    }
    const std::string name = fresh.next(*variant, 1);
    TimedCalls calls;
    std::string why_not;
    const bool answered = count_call(
        worker->process().pid(), [&] { return worker->time(name, 0, 1, false, sides.timeout, calls); }, counts, why_not);
    if (!answered) {
      const WorkerFailure failure = worker->failure();
      if (worker == &cand) context.retire_candidate_if_dead();
      const bool submission_code = worker == &cand || (partner < 0 && baseline_is_candidate_code);
      return sides.fail(submission_code ? failure.verdict : Verdict::internal_error,
                        "the counted call of " + *variant + " failed: " + failure.details);
    }
    if (counters.unavailable.empty()) counters.unavailable = why_not;
    if (partner >= 0)
      partners.counts[static_cast<std::size_t>(partner)] = std::move(counts);
    else if (counts.threads > 0)
      counters.sides.push_back(std::move(counts));
  }
  m.cpu_counters = std::move(counters);
  m.spent.counters = measure_seconds_since(counters_began);
  return true;
}

}  // namespace grader
