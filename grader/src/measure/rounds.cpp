#include "measure/rounds.h"

#include <algorithm>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "check/outputs.h"
#include "measure/partners.h"
#include "measure/statistics.h"

namespace grader {

namespace {

// After the rounds the submission's processes rest this long, watched (QuietWatch), while the judge checks the last
// round. A thread that waits until its process has been idle for a while and then burns a CPU only slows the
// yardstick when the grader happens to pause between calls: lab 90's waits 50 ms, and where every baseline call came
// within 50 ms of a candidate's return it was never seen (e2e.trust.burns_cpu_between_calls failed 1 grading in 4).
// A rest longer than such a wait shows it every time.
constexpr double watched_rest_seconds = 0.15;
// The fewest pairs of timed calls whose interval may end the rounds as decided (below the lab's min_reps): one pair
// has no spread at all.
constexpr int least_pairs_to_decide = 2;

}  // namespace

bool time_rounds(TimedSides& sides, Measurement& m, Rounds& rounds) {
  const PerformanceItem& item = sides.item;
  const MeasureInputs& in = sides.in;
  MeasureContext& context = sides.context;
  const Variables& scope = sides.scope;
  const double timeout = sides.timeout;
  FreshCalls& fresh = sides.fresh;
  Worker& cand = sides.cand;
  Worker& j = sides.judge;
  Worker* baseline = sides.baseline;
  const std::string& baseline_variant = sides.baseline_variant;
  const bool baseline_is_candidate_code = sides.baseline_is_candidate_code;
  QuietWatch& quiet = sides.quiet;
  const Tolerance& tolerance = in.tolerance;
  const auto& timing = context.spec.timing;
  Timing& cap = rounds.cap;
  std::vector<Timing>& yardsticks = rounds.yardsticks;
  std::vector<std::string>& yardstick_variants = rounds.yardstick_variants;
  std::optional<std::vector<Array>>& oracle_outputs = rounds.oracle_outputs;
  std::uint64_t& oracle_call = rounds.oracle_call;
  int& reps_per_round = rounds.reps_per_round;
  double& cand_outside_seconds = rounds.cand_outside_seconds;
  int& cand_outside_calls = rounds.cand_outside_calls;

  m.candidate.label = "candidate " + item.variant;
  m.baseline.label = std::string(baseline_is_candidate_code ? "candidate " : "judge ") + baseline_variant;
  cap.label = "judge " + item.baseline.cap;
  // The partners' yardsticks (MeasureContext::partners), timed in the same rounds, just before the item's own: the
  // candidate's calls see the inputs of the item's yardstick's calls, where that is the oracle.
  yardsticks.assign(context.partners.size(), Timing{});
  yardstick_variants.clear();
  for (const PerformanceItem* partner : context.partners) {
    yardstick_variants.push_back(partner->baseline.variant.empty() ? partner->variant : partner->baseline.variant);
    yardsticks[yardstick_variants.size() - 1].label = "judge " + yardstick_variants.back();
  }
  context.partner_measurements.clear();
  // Rows that differ only in a parameter (lab3's scaling: all threads against one) name it, or both would
  // read "candidate matmul".
  for (const auto& override : item.baseline.params) {
    if (const auto found = in.params.find(override.name); found != in.params.end())
      m.candidate.label += " " + override.name + "=" + measure_shown(found->second);
    if (const auto found = in.baseline_params.find(override.name); found != in.baseline_params.end())
      m.baseline.label += " " + override.name + "=" + measure_shown(found->second);
  }
  const auto start = measure_clock::now();
  reps_per_round = 1;

  // The outputs of one timed call of each round come back; the judge replays that call's inputs and the two
  // must agree. The judge's naive code can cost far more than a round (lab 3: a second against 0.1 s), so a
  // round is checked with a probability that keeps checking to about the time spent timing, at least 1 in 4,
  // drawn from the run's secret seed; the first and the last round are always checked.
  // Where the baseline is the oracle's own code (baseline.oracle), it ran on the very inputs of the candidate's
  // calls just before them, and its last call's outputs are the expected ones: the check then costs a comparison,
  // and every round is checked. Outputs that disagree with it are replayed by the oracle, whose word decides: a
  // baseline that rounds differently can never fail a correct submission.
  const bool baseline_is_oracle = item.baseline.oracle && baseline == &j;
  std::mt19937_64 pick(in.seeds.checks);
  double check_seconds = 0, last_check_seconds = 0;
  std::optional<std::pair<Verdict, std::string>> check_failure;
  auto verify = [&](const std::vector<Array>& got, std::uint64_t call, const std::vector<Array>* baseline_outputs) {
    const auto began = measure_clock::now();
    if (baseline_outputs != nullptr) {
      const OutputsCheck same = check_outputs(got, *baseline_outputs, tolerance);
      if (same.passed && !same.oracle_invalid) {
        last_check_seconds = measure_seconds_since(began);
        check_seconds += last_check_seconds;
        ++m.spent.checked_rounds;
        return true;
      }
    }
    std::vector<Array> want;
    double ignored = 0;
    if (!j.run(fresh.replay(item.variant, call), timeout, want, ignored)) {
      check_failure = {Verdict::internal_error, "the judge failed on a timed call's inputs: " + j.failure().details};
      return false;
    }
    last_check_seconds = measure_seconds_since(began);
    check_seconds += last_check_seconds;
    ++m.spent.checked_rounds;
    const OutputsCheck check = check_outputs(got, want, tolerance);
    j.keep_storage(want);
    if (check.oracle_invalid)
      check_failure = {Verdict::internal_error, "the judge's outputs for a timed call's inputs hold NaN or Inf"};
    else if (!check.passed)
      check_failure = {Verdict::wrong_answer, "the outputs of timed call " + std::to_string(call) +
                                                  " (its inputs fresh, like every timed call's) are wrong: " + check.summary};
    return !check_failure;
  };
  struct Unchecked {
    std::vector<Array> outputs;
    std::uint64_t call = 0;
  };
  std::optional<Unchecked> unchecked;  // the last round's outputs, when that round was not checked yet
  // rounds.oracle_outputs: the expected outputs of the last round's check too.

  // The measurement so far, its rates and roofline derived as they will be after the rounds, for the question
  // whether its points are decided (points_decided in measure_item.h). A cap, timed in the same rounds, may yet
  // take the baseline's place, so an item with one runs its rounds out.
  rounds.ceilings = roofline_ceilings(item, scope, context.spec.gpu, context.calibration);
  const std::optional<Ceilings>& ceilings = rounds.ceilings;
  auto so_far = [&] {
    Measurement partial = m;
    fill_rates(item, scope, partial.candidate);
    fill_rates(item, scope, partial.baseline);
    derive_speedup(partial);
    if (ceilings) {
      Ceilings raised = *ceilings;
      if (!baseline_is_candidate_code) raise_to_judge_rate(partial.baseline, raised);
      place_on_roofline(item, scope, raised, partial);
    }
    return partial;
  };
  auto partner_so_far = [&](std::size_t i, const Measurement& partial, const std::optional<Timing>& bound_now) {
    return partner_measurement(*context.partners[i], scope, context.spec.gpu, context.calibration, partial,
                               yardsticks[i], bound_now);
  };
  auto all_decided = [&](bool few_pairs) {
    const Measurement partial = so_far();
    if (!context.points_decided(item, partial, few_pairs)) return false;
    for (std::size_t i = 0; i < yardsticks.size(); ++i)
      if (!context.points_decided(*context.partners[i], partner_so_far(i, partial, std::nullopt), few_pairs)) return false;
    return true;
  };
  const bool may_stop_when_decided = context.points_decided && item.baseline.cap.empty();

  for (int round = 0;; ++round) {
    const int warmup = round == 0 ? timing.warmup : 0;
    // Only the last call of a round is checked. With the same number of calls in every round, counting calls
    // between the pauses would tell a submission which call that is; so each round has a secret length.
    const int calls = std::uniform_int_distribution<int>(1, reps_per_round)(pick);
    const auto round_start = measure_clock::now();
    TimedCalls base_calls, cap_calls, cand_calls;
    for (std::size_t i = 0; i < yardsticks.size(); ++i) {
      const std::string& variant = yardstick_variants[i];
      TimedCalls partner_calls;
      if (!sides.timed(j, fresh.next(variant, warmup + calls), warmup, calls, false, partner_calls))
        return sides.fail(Verdict::internal_error, "the judge's " + variant + " failed: " + j.failure().details);
      yardsticks[i].seconds.insert(yardsticks[i].seconds.end(), partner_calls.seconds.begin(), partner_calls.seconds.end());
    }
    const std::string base_name = fresh.next(baseline_variant, warmup + calls);
    const std::string cand_on_base_inputs = fresh.same_inputs(item.variant);
    const std::uint64_t base_last_call = fresh.last_call();
    if (!sides.timed(*baseline, base_name, warmup, calls, /*want_outputs=*/baseline_is_oracle, base_calls)) {
      const auto& failure = baseline->failure();
      return sides.fail(baseline_is_candidate_code ? failure.verdict : Verdict::internal_error,
                        "the baseline run failed: " + failure.details);
    }
    if (!item.baseline.cap.empty() &&
        !sides.timed(j, fresh.next(item.baseline.cap, warmup + calls), warmup, calls, false, cap_calls))
      return sides.fail(Verdict::internal_error, "the judge's " + item.baseline.cap + " failed: " + j.failure().details);
    const std::string cand_name = baseline_is_oracle ? cand_on_base_inputs : fresh.next(item.variant, warmup + calls);
    const std::uint64_t checked_call = baseline_is_oracle ? base_last_call : fresh.last_call();
    const std::vector<Array>* expected_now = baseline_is_oracle ? &base_calls.outputs : nullptr;
    const auto cand_began = measure_clock::now();
    if (!sides.timed(cand, cand_name, warmup, calls, /*want_outputs=*/true, cand_calls)) {
      Verdict v = cand.failure().verdict;
      std::string details = cand.failure().details;
      context.retire_candidate_if_dead();
      return sides.fail(v, details);
    }
    cand_outside_seconds += measure_seconds_since(cand_began);
    cand_outside_calls += warmup + calls;
    if (cand_calls.outputs_changed)
      return sides.fail(Verdict::suspect, "the outputs changed after the timed call had returned: work was left running "
                                          "outside the timed region");
    if (cand_calls.busy_threads > 0)
      return sides.fail(Verdict::suspect, std::to_string(cand_calls.busy_threads) + " thread(s) of the submission were still "
                                          "running after the timed call returned");
    const double round_seconds = measure_seconds_since(round_start);
    const double check_chance =
        last_check_seconds > 0 ? std::clamp(round_seconds / last_check_seconds, 0.25, 1.0) : 1.0;
    // Outputs done with go back to the worker that sent them: its next answer is read into their memory
    // (run/answer_storage.h; a fresh 256 MiB buffer for lab 6's y cost 0.14 s of page faults and zeroing).
    if (unchecked) cand.keep_storage(unchecked->outputs);
    if (round == 0 || std::uniform_real_distribution<double>(0, 1)(pick) < check_chance) {
      unchecked.reset();
      if (!verify(cand_calls.outputs, checked_call, expected_now)) return sides.fail(check_failure->first, check_failure->second);
      cand.keep_storage(cand_calls.outputs);
    } else {
      unchecked = Unchecked{std::move(cand_calls.outputs), checked_call};
    }
    if (expected_now != nullptr) {
      if (oracle_outputs) baseline->keep_storage(*oracle_outputs);
      oracle_outputs = std::move(base_calls.outputs);
      oracle_call = checked_call;
    }
    m.baseline.seconds.insert(m.baseline.seconds.end(), base_calls.seconds.begin(), base_calls.seconds.end());
    cap.seconds.insert(cap.seconds.end(), cap_calls.seconds.begin(), cap_calls.seconds.end());
    m.candidate.seconds.insert(m.candidate.seconds.end(), cand_calls.seconds.begin(), cand_calls.seconds.end());

    if (round == 0) {
      // Rounds of about 20 ms each: short calls are batched so per-command overhead stays negligible.
      const double slowest = std::max(summarize(m.baseline.seconds).median, summarize(m.candidate.seconds).median);
      reps_per_round = slowest > 0 ? static_cast<int>(std::clamp(0.02 / slowest, 1.0, 256.0)) : 1;
    }
    const int reps = static_cast<int>(m.candidate.seconds.size());
    double noise = std::max(summarize(m.baseline.seconds).relative_spread(), summarize(m.candidate.seconds).relative_spread());
    for (const auto& yardstick : yardsticks) noise = std::max(noise, summarize(yardstick.seconds).relative_spread());
    const bool enough = reps >= timing.min_reps;
    // The judge's checks are not timing: they do not use up the timing budget.
    const double spent = measure_seconds_since(start) - check_seconds;
    m.spent.round_count = round + 1;
    if (enough && (noise <= timing.target_noise || reps >= timing.max_reps || spent >= timing.max_seconds)) break;
    if (spent >= 3 * timing.max_seconds) break;  // never more than this, even below min_reps
    // More rounds only narrow the interval; once every value in it earns the same points, they cannot change them.
    // Below min_reps (lab 4's third call of its naive 2048^3 yardstick costs 5 s to confirm a x14 speedup against a
    // tier at x8, or a skeleton's x1 against x3) only once the quiet watch has watched long enough that a share of
    // CPU used while the other side was timed shows as it would after min_reps (measure/quiet.h): the rounds are
    // also its chances to see a submission misbehave between calls, and over lab 90's short calls two pairs hid a
    // thread that burns a CPU 50 ms after each call (e2e.trust.burns_cpu_between_calls). Every round is checked
    // where the baseline is the oracle, and the first and the last always; below min_reps the interval must clear
    // the tiers by more (score/score_item.h, few_pairs).
    const bool may_decide = enough || (reps >= least_pairs_to_decide && quiet.watched_long_enough());
    if (may_decide && may_stop_when_decided && all_decided(!enough)) {
      m.spent.stopped_early = true;
      break;
    }
  }
  // The rest (watched_rest_seconds) begins with the last round's check, which needs no submission process.
  std::vector<QuietWatch::Watched> resting;
  if (cand.alive()) resting.push_back({cand.process().pid(), "submission's process"});
  if (baseline_is_candidate_code && sides.separate_baseline->alive())
    resting.push_back({sides.separate_baseline->process().pid(), "submission's baseline process"});
  const auto rest_began = measure_clock::now();
  quiet.before(resting);
  if (unchecked && !verify(unchecked->outputs, unchecked->call, oracle_outputs ? &*oracle_outputs : nullptr))
    return sides.fail(check_failure->first, check_failure->second);
  const double rested = measure_seconds_since(rest_began);
  if (!resting.empty() && rested < watched_rest_seconds)  // no process of the submission left to watch: no rest
    std::this_thread::sleep_for(std::chrono::duration<double>(watched_rest_seconds - rested));
  quiet.after(measure_seconds_since(rest_began));
  m.spent.checks = check_seconds;
  m.spent.rounds = measure_seconds_since(start) - check_seconds;
  if (const std::string why = quiet.verdict(); !why.empty()) return sides.fail(Verdict::suspect, why);

  return true;
}

}  // namespace grader
