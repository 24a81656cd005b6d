#include "measure/bound.h"

#include <string>
#include <vector>

#include "measure/statistics.h"

namespace grader {

namespace {

// What a bound is remembered by for the grading's other items (MeasureContext::bounds_timed): its variant and inputs.
std::string bound_key(const TimedSides& sides) {
  std::string key = sides.item.bound;
  for (const auto& [name, value] : sides.in.params) key += " " + name + "=" + measure_shown(value);
  return key;
}

// `reps` calls of the judge's `variant` (on `worker`, the judge or the judge's baseline) on fresh inputs, after the
// lab's warm-up. False: the judge failed on it (`sides.failure`).
bool time_judge(TimedSides& sides, Worker& worker, const std::string& variant, int reps, TimedCalls& calls) {
  const int warmup = sides.context.spec.timing.warmup;
  if (sides.timed(worker, sides.fresh.next(variant, warmup + reps), warmup, reps, false, calls)) return true;
  return sides.fail(Verdict::internal_error, "the judge's " + variant + " failed: " + worker.failure().details);
}

}  // namespace

bool time_bound(TimedSides& sides, Measurement& m, std::optional<Timing>& bound) {
  const PerformanceItem& item = sides.item;
  MeasureContext& context = sides.context;
  Worker& j = sides.judge;
  const auto& timing = context.spec.timing;
  // Where the baseline is the bound (lab 6's transfer bound) it is that; else timed now like a compare entry.
  const auto bound_began = measure_clock::now();
  bound.reset();
  if (!item.bound.empty()) {
    if (sides.baseline == &j && sides.baseline_variant == item.bound) {
      bound = m.baseline;
    } else {
      for (const auto& t : m.compare)
        if (t.label == "judge " + item.bound && !t.seconds.empty()) bound = t;
      const std::string key = bound_key(sides);
      if (!bound && context.bounds_timed != nullptr) {
        if (const auto earlier = context.bounds_timed->find(key); earlier != context.bounds_timed->end())
          bound = earlier->second;
      }
      if (!bound) {
        context.progress("bound", "performance: " + item.name + ": timing the judge's " + item.bound);
        TimedCalls calls;
        if (!time_judge(sides, j, item.bound, timing.min_reps, calls)) return false;
        bound = Timing{};
        bound->label = "judge " + item.bound;
        bound->seconds = calls.seconds;
        if (context.bounds_timed != nullptr) (*context.bounds_timed)[key] = *bound;
      }
    }
  }
  m.spent.bound = measure_seconds_since(bound_began);
  return true;
}

bool time_bound_again(TimedSides& sides, Measurement& m, Timing& bound) {
  const PerformanceItem& item = sides.item;
  MeasureContext& context = sides.context;
  const auto& timing = context.spec.timing;
  const auto began = measure_clock::now();
  context.progress("bound", "performance: " + item.name + ": timing the judge's " + item.bound + " again");
  TimedCalls calls;
  if (!time_judge(sides, sides.judge, item.bound, timing.min_reps, calls)) return false;
  m.spent.bound += measure_seconds_since(began);
  if (calls.seconds.empty() || summarize(calls.seconds).median >= summarize(bound.seconds).median) return true;
  bound.seconds = calls.seconds;
  if (context.bounds_timed != nullptr) (*context.bounds_timed)[bound_key(sides)] = bound;
  return true;
}

bool bound_paced_by_baseline(TimedSides& sides, Measurement& m, std::optional<double>& paced) {
  paced.reset();
  const PerformanceItem& item = sides.item;
  MeasureContext& context = sides.context;
  const auto& timing = context.spec.timing;
  if (sides.baseline_is_candidate_code || sides.baseline == nullptr || sides.baseline_variant == item.bound ||
      m.baseline.seconds.empty())
    return true;
  const auto began = measure_clock::now();
  context.progress("bound", "performance: " + item.name + ": timing the judge's " + item.bound + " beside its " +
                                sides.baseline_variant);
  std::vector<double> ratios;
  for (int pair = 0; pair < timing.min_reps; ++pair) {
    TimedCalls bound_calls, baseline_calls;
    if (!time_judge(sides, sides.judge, item.bound, 1, bound_calls) ||
        !time_judge(sides, *sides.baseline, sides.baseline_variant, 1, baseline_calls))
      return false;
    if (bound_calls.seconds.empty() || baseline_calls.seconds.empty() || !(baseline_calls.seconds.back() > 0)) continue;
    ratios.push_back(bound_calls.seconds.back() / baseline_calls.seconds.back());
  }
  m.spent.bound += measure_seconds_since(began);
  if (ratios.empty()) return true;
  paced = summarize(ratios).median * summarize(m.baseline.seconds).median;
  return true;
}

}  // namespace grader
