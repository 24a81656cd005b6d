#include "measure/measure_item.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "measure/bound.h"
#include "measure/ceilings.h"
#include "measure/compare_rows.h"
#include "measure/counted_calls.h"
#include "measure/cross_check.h"
#include "measure/partners.h"
#include "measure/rounds.h"
#include "measure/statistics.h"
#include "measure/timed_sides.h"

namespace grader {

bool measure_item(const PerformanceItem& item, const MeasureInputs& in, MeasureContext& context, TestResult& test) {
  const Variables& params = in.params;
  const std::uint64_t seed = in.seeds.inputs;
  const double timeout = context.spec.limits.wall_seconds;
  Variables scope = context.machine;
  for (const auto& [name, value] : params) scope[name] = value;
  auto fail = [&](Verdict verdict, const std::string& details) {
    test.verdict = verdict;
    test.details = details;
    test.score = 0;
    return false;
  };

  // The candidate and the judge build the item's inputs at once (setup is untimed; for lab 8's gigabyte it takes
  // seconds). The candidate's reply is read below, or before the next command it gets if the judge fails first.
  // A worker that holds these very inputs (the same parameters and seed: an earlier item's, pipeline/performance.cpp)
  // builds nothing again: lab 1's two items on one 800 MB A spent 0.85 s each setting it up in both workers. Every
  // timed call is fresh all the same, its changes drawn from this item's own seed.
  // No answer is computed here: every timed call's inputs are fresh, so the judge checks them call by call (below),
  // and the answer to the inputs as set up is wanted only by the candidate's rows of `compare`, after the timing.
  // Computing it up front cost a naive run per item (5 s of lab 4's 2048^3 product) that most items never read.
  context.progress("setup", "performance: " + item.name + ": setting up the inputs");
  Measurement m;
  const auto setup_began = measure_clock::now();
  Worker& cand = context.candidate();
  if (cand.alive() && !cand.holds_inputs(params, seed)) cand.start_setup(params, seed, {}, timeout);
  Worker& j = context.judge();
  if (!j.alive() || (!j.holds_inputs(params, seed) && !j.setup(params, seed, {}, timeout))) {
    const std::string why = j.failure().details;  // forget_judge() destroys j
    context.forget_judge();
    return fail(Verdict::internal_error, "the judge failed: " + why);
  }

  // The baseline: the judge itself (already set up with these inputs) unless the item compares the
  // candidate with itself or uses other parameters.
  const std::string baseline_variant = item.baseline.variant.empty() ? item.variant : item.baseline.variant;
  Worker* baseline = &j;
  std::unique_ptr<Worker> separate_baseline;
  if (item.baseline.process == BaselineSpec::Process::candidate || !item.baseline.params.empty()) {
    const bool on_candidate = item.baseline.process == BaselineSpec::Process::candidate;
    separate_baseline = context.start_baseline(on_candidate);
    if (!separate_baseline->alive() || !separate_baseline->setup(in.baseline_params, seed, {}, timeout)) {
      const auto& failure = separate_baseline->failure();
      return fail(on_candidate ? failure.verdict : Verdict::internal_error, "the baseline run failed: " + failure.details);
    }
    baseline = separate_baseline.get();
  }

  if (!cand.finish_setup()) {
    Verdict v = cand.failure().verdict;
    context.retire_candidate_if_dead();
    return fail(v == Verdict::passed ? Verdict::internal_error : v, cand.failure().details);
  }

  // From here on the stages share the item's workers and what they timed (measure/timed_sides.h).
  const bool baseline_is_candidate_code =
      separate_baseline != nullptr && item.baseline.process == BaselineSpec::Process::candidate;
  TimedSides sides{item, in, context, scope, timeout, FreshCalls(in.seeds.fresh), cand, j, baseline,
                   std::move(separate_baseline), baseline_variant, baseline_is_candidate_code, {}, std::nullopt};
  // The failure of a stage, as this item's verdict.
  auto failed = [&] { return fail(sides.failure->verdict, sides.failure->details); };

  // Interleave baseline and candidate in rounds, so a change in the machine's load touches both alike;
  // warm up first; stop once both are steady, or at the lab's repetition or time budget (measure/rounds.h).
  m.spent.setup = measure_seconds_since(setup_began);
  context.progress("timing", "performance: " + item.name + ": timing");
  Rounds rounds;
  if (!time_rounds(sides, m, rounds)) return failed();
  PartnerCounts partner_counts;
  if (!count_calls(sides, rounds, m, partner_counts)) return failed();
  if (context.compare_rows && !time_compare_rows(sides, rounds, m)) return failed();
  std::optional<Timing> bound;
  if (!time_bound(sides, m, bound)) return failed();

  fill_rates(item, scope, m.candidate);
  fill_rates(item, scope, m.baseline);
  bool yardstick_is_judge_code = !baseline_is_candidate_code;
  if (!rounds.cap.seconds.empty()) {
    // The yardstick is the faster of the candidate's own baseline and the judge's cap: slowing the baseline
    // down buys nothing beyond the judge's time.
    fill_rates(item, scope, rounds.cap);
    if (rounds.cap.median < m.baseline.median) {
      rounds.cap.label += " (caps " + m.baseline.label + ", which took " + measure_fixed(m.baseline.median * 1e3, 2) + " ms)";
      std::swap(rounds.cap, m.baseline);
      yardstick_is_judge_code = true;
    }
    m.compare.push_back(rounds.cap);
  }
  derive_speedup(m);
  if (bound) fill_rates(item, scope, *bound);
  if (auto raised = rounds.ceilings) {
    if (yardstick_is_judge_code) raise_to_judge_rate(m.baseline, *raised);
    if (bound) raise_to_judge_rate(*bound, *raised);
    place_on_roofline(item, scope, *raised, m);
  }

  // The times above are the workers' own; a submission shares its process with the timer. Check them against the
  // grader's own clock before they earn anything. The check only ever finds times reported too short, so where
  // they earn no point even taken at their word (slow code: a skeleton, a first attempt) it is left out; it costs
  // four more calls, 12 s of lab 4's naive 2048^3 product.
  // The harness's own cost per call is measured on judge code, on inputs of the candidate's shapes: the baseline
  // when it is judge code, else the judge's cap (fast serial code), else the judge running the item's variant.
  std::string unreconciled;
  // Where the rounds were shared, the candidate's calls earn points for the item or for any partner.
  std::vector<Measurement> partners;
  for (std::size_t i = 0; i < rounds.yardsticks.size(); ++i)
    partners.push_back(partner_measurement(*context.partners[i], scope, context.spec.gpu, context.calibration, m,
                                           rounds.yardsticks[i], bound, partner_counts.counts[i],
                                           partner_counts.skipped[i]));
  m.outside_checked = !context.earns_points || context.earns_points(item, m);
  for (std::size_t i = 0; i < partners.size() && !m.outside_checked; ++i)
    m.outside_checked = context.earns_points(*context.partners[i], partners[i]);
  if (m.outside_checked) {
    context.progress("cross-check", "performance: " + item.name + ": checking the times with the grader's own clock");
    const auto cross_check_began = measure_clock::now();
    Worker& overhead_worker = baseline_is_candidate_code ? j : *baseline;
    const std::string overhead_variant =
        !baseline_is_candidate_code ? baseline_variant : (!item.baseline.cap.empty() ? item.baseline.cap : item.variant);
    // The rounds themselves first: where their outside time agrees, the extra runs could not disagree.
    const double reported = summarize(m.candidate.seconds).median;
    if (!rounds_agree_with_reports(rounds.cand_outside_seconds, rounds.cand_outside_calls, reported))
      unreconciled = cross_check_times(cand, item.variant, reported, overhead_worker, overhead_variant,
                                       rounds.reps_per_round, sides.fresh, timeout);
    m.spent.cross_check = measure_seconds_since(cross_check_began);
    if (!cand.alive()) {
      Verdict v = cand.failure().verdict;
      std::string details = cand.failure().details;
      context.retire_candidate_if_dead();
      return fail(v, details);
    }
  }
  test.measurement = m;
  for (auto& partner : partners) partner.outside_checked = m.outside_checked;
  if (!unreconciled.empty()) return fail(Verdict::suspect, unreconciled);
  if (bound) {  // its median was filled in with its rates, above
    // Before an accusation, the judge's bound is timed again and the faster kept: only a bound that the judge's own
    // best still cannot come near makes the candidate's time unbelievable. The baseline as bound is not timed again:
    // it was interleaved with the candidate's calls in every round.
    const bool baseline_is_bound = sides.baseline == &j && sides.baseline_variant == item.bound;
    const auto beaten = [&](double bound_seconds) {
      return m.candidate.median > 0 && bound_seconds / m.candidate.median > believable_ceiling;
    };
    if (!baseline_is_bound && beaten(bound->median)) {
      if (!time_bound_again(sides, m, *bound)) return failed();
      fill_rates(item, scope, *bound);
    }
    // Still beaten by far: the bound as it would have read during the rounds (measure/bound.h) has the last word.
    std::optional<double> paced;
    if (!baseline_is_bound && beaten(bound->median) && !bound_paced_by_baseline(sides, m, paced)) return failed();
    if (beaten(bound->median) && (!paced || beaten(*paced))) {
      const double fastest_claim = std::min(bound->median, paced.value_or(bound->median)) / m.candidate.median;
      return fail(Verdict::suspect, "measured " + measure_fixed(fastest_claim, 2) + " times faster than the " +
                                        bound->label + ", which no code beats by much: the timing was fooled (work "
                                        "outside the timed call, or kept from an earlier call?)");
    }
  }
  context.partner_measurements = std::move(partners);
  return true;
}

}  // namespace grader
