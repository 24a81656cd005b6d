#include "measure/measure_item.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "check/outputs.h"
#include "measure/ceilings.h"
#include "measure/cpu_counters.h"
#include "measure/cross_check.h"
#include "measure/fresh.h"
#include "measure/partners.h"
#include "measure/quiet.h"
#include "measure/statistics.h"

namespace grader {

namespace {

using steady = std::chrono::steady_clock;

constexpr int candidate_compare_reps = 3;  // calls timed for a `candidate:<variant>` row of `compare`
// After the rounds the submission's processes rest this long, watched (QuietWatch), while the judge checks the last
// round. A thread that waits until its process has been idle for a while and then burns a CPU only slows the
// yardstick when the grader happens to pause between calls: lab 90's waits 50 ms, and where every baseline call came
// within 50 ms of a candidate's return it was never seen (e2e.trust.burns_cpu_between_calls failed 1 grading in 4).
// A rest longer than such a wait shows it every time.
constexpr double watched_rest_seconds = 0.15;
// A `candidate:<variant>` row whose first call takes this long keeps that one call: lab 4's skeleton's naive
// register-blocked function takes 1.5 s a call at 128 x 4096 x 4096, and a call that long is not moved by what a
// call's first microseconds cost; three of them were 4.5 s of its grading, for a row that earns nothing.
constexpr double long_compare_call = 0.5;
// The fewest pairs of timed calls whose interval may end the rounds as decided (below the lab's min_reps): one pair
// has no spread at all.
constexpr int least_pairs_to_decide = 2;
// The longest call counted (measure/cpu_counters.h): lab 4's naive 2048^3 yardstick takes seconds a call, which a
// figure for the report is not worth in every grading of the class.
constexpr double longest_counted_call = 1.0;

double measure_seconds_since(steady::time_point start) { return std::chrono::duration<double>(steady::now() - start).count(); }

std::string measure_fixed(double value, int digits) {
  std::ostringstream text;
  text.precision(digits);
  text << std::fixed << value;
  return text.str();
}

}  // namespace

bool measure_item(const PerformanceItem& item, const MeasureInputs& in, MeasureContext& context, TestResult& test) {
  const Variables& params = in.params;
  const std::uint64_t seed = in.seeds.inputs;
  const Tolerance& tolerance = in.tolerance;
  const double timeout = context.spec.limits.wall_seconds;
  Variables scope = context.machine;
  for (const auto& [name, value] : params) scope[name] = value;
  // Every timed call gets inputs of its own (measure/fresh.h): a submission cannot reuse work from an earlier
  // call, and the judge replays the inputs of the calls whose outputs are checked.
  FreshCalls fresh(in.seeds.fresh);
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
  const auto setup_began = steady::now();
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

  // Interleave baseline and candidate in rounds, so a change in the machine's load touches both alike;
  // warm up first; stop once both are steady, or at the lab's repetition or time budget.
  m.spent.setup = measure_seconds_since(setup_began);
  context.progress("timing", "performance: " + item.name + ": timing");
  const auto& timing = context.spec.timing;
  const bool baseline_is_candidate_code =
      separate_baseline != nullptr && item.baseline.process == BaselineSpec::Process::candidate;
  m.candidate.label = "candidate " + item.variant;
  m.baseline.label = std::string(baseline_is_candidate_code ? "candidate " : "judge ") + baseline_variant;
  Timing cap;  // the judge's cap of a candidate baseline (baseline.cap), timed in the same rounds
  cap.label = "judge " + item.baseline.cap;
  // The partners' yardsticks (MeasureContext::partners), timed in the same rounds, just before the item's own: the
  // candidate's calls see the inputs of the item's yardstick's calls, where that is the oracle.
  std::vector<Timing> yardsticks(context.partners.size());
  std::vector<std::string> yardstick_variants;
  for (const PerformanceItem* partner : context.partners) {
    yardstick_variants.push_back(partner->baseline.variant.empty() ? partner->variant : partner->baseline.variant);
    yardsticks[yardstick_variants.size() - 1].label = "judge " + yardstick_variants.back();
  }
  context.partner_measurements.clear();
  // Rows that differ only in a parameter (lab3's scaling: all threads against one) name it, or both would
  // read "candidate matmul".
  auto shown = [](double value) {
    std::ostringstream text;
    text << value;
    return text.str();
  };
  for (const auto& override : item.baseline.params) {
    if (const auto found = in.params.find(override.name); found != in.params.end())
      m.candidate.label += " " + override.name + "=" + shown(found->second);
    if (const auto found = in.baseline_params.find(override.name); found != in.baseline_params.end())
      m.baseline.label += " " + override.name + "=" + shown(found->second);
  }
  const auto start = steady::now();
  int reps_per_round = 1;
  const double command_timeout = timeout;

  // While one side is timed, the processes running the submission's code on the other side must be idle.
  QuietWatch quiet;
  auto timed = [&](Worker& worker, const std::string& name, int warmup, int reps, bool outputs, TimedCalls& into) {
    std::vector<QuietWatch::Watched> watched;
    if (&worker != &cand && cand.alive()) watched.push_back({cand.process().pid(), "submission's process"});
    if (baseline_is_candidate_code && &worker != separate_baseline.get() && separate_baseline->alive())
      watched.push_back({separate_baseline->process().pid(), "submission's baseline process"});
    quiet.before(watched);
    const auto began = steady::now();
    const bool ok = worker.time(name, warmup, reps, outputs, command_timeout, into);
    quiet.after(measure_seconds_since(began));
    return ok;
  };

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
    const auto began = steady::now();
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
  // The oracle baseline's outputs of the last round's checked call, and that call's index: the expected outputs of
  // the last round's check, and of the candidate's rows of `compare`, timed on those very inputs (below).
  std::optional<std::vector<Array>> oracle_outputs;
  std::uint64_t oracle_call = 0;

  // The measurement so far, its rates and roofline derived as they will be after the rounds, for the question
  // whether its points are decided (points_decided in measure_item.h). A cap, timed in the same rounds, may yet
  // take the baseline's place, so an item with one runs its rounds out.
  const auto ceilings = roofline_ceilings(item, scope, context.spec.gpu, context.calibration);
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
  // The candidate's rounds as the grader's clock saw them, for the outside cross-check (measure/cross_check.h).
  double cand_outside_seconds = 0;
  int cand_outside_calls = 0;

  for (int round = 0;; ++round) {
    const int warmup = round == 0 ? timing.warmup : 0;
    // Only the last call of a round is checked. With the same number of calls in every round, counting calls
    // between the pauses would tell a submission which call that is; so each round has a secret length.
    const int calls = std::uniform_int_distribution<int>(1, reps_per_round)(pick);
    const auto round_start = steady::now();
    TimedCalls base_calls, cap_calls, cand_calls;
    for (std::size_t i = 0; i < yardsticks.size(); ++i) {
      const std::string& variant = yardstick_variants[i];
      TimedCalls partner_calls;
      if (!timed(j, fresh.next(variant, warmup + calls), warmup, calls, false, partner_calls))
        return fail(Verdict::internal_error, "the judge's " + variant + " failed: " + j.failure().details);
      yardsticks[i].seconds.insert(yardsticks[i].seconds.end(), partner_calls.seconds.begin(), partner_calls.seconds.end());
    }
    const std::string base_name = fresh.next(baseline_variant, warmup + calls);
    const std::string cand_on_base_inputs = fresh.same_inputs(item.variant);
    const std::uint64_t base_last_call = fresh.last_call();
    if (!timed(*baseline, base_name, warmup, calls, /*want_outputs=*/baseline_is_oracle, base_calls)) {
      const auto& failure = baseline->failure();
      return fail(baseline_is_candidate_code ? failure.verdict : Verdict::internal_error,
                  "the baseline run failed: " + failure.details);
    }
    if (!item.baseline.cap.empty() &&
        !timed(j, fresh.next(item.baseline.cap, warmup + calls), warmup, calls, false, cap_calls))
      return fail(Verdict::internal_error, "the judge's " + item.baseline.cap + " failed: " + j.failure().details);
    const std::string cand_name = baseline_is_oracle ? cand_on_base_inputs : fresh.next(item.variant, warmup + calls);
    const std::uint64_t checked_call = baseline_is_oracle ? base_last_call : fresh.last_call();
    const std::vector<Array>* expected_now = baseline_is_oracle ? &base_calls.outputs : nullptr;
    const auto cand_began = steady::now();
    if (!timed(cand, cand_name, warmup, calls, /*want_outputs=*/true, cand_calls)) {
      Verdict v = cand.failure().verdict;
      std::string details = cand.failure().details;
      context.retire_candidate_if_dead();
      return fail(v, details);
    }
    cand_outside_seconds += measure_seconds_since(cand_began);
    cand_outside_calls += warmup + calls;
    if (cand_calls.outputs_changed)
      return fail(Verdict::suspect, "the outputs changed after the timed call had returned: work was left running "
                                    "outside the timed region");
    if (cand_calls.busy_threads > 0)
      return fail(Verdict::suspect, std::to_string(cand_calls.busy_threads) + " thread(s) of the submission were still "
                                    "running after the timed call returned");
    const double round_seconds = measure_seconds_since(round_start);
    const double check_chance =
        last_check_seconds > 0 ? std::clamp(round_seconds / last_check_seconds, 0.25, 1.0) : 1.0;
    // Outputs done with go back to the worker that sent them: its next answer is read into their memory
    // (run/answer_storage.h; a fresh 256 MiB buffer for lab 6's y cost 0.14 s of page faults and zeroing).
    if (unchecked) cand.keep_storage(unchecked->outputs);
    if (round == 0 || std::uniform_real_distribution<double>(0, 1)(pick) < check_chance) {
      unchecked.reset();
      if (!verify(cand_calls.outputs, checked_call, expected_now)) return fail(check_failure->first, check_failure->second);
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
  if (baseline_is_candidate_code && separate_baseline->alive())
    resting.push_back({separate_baseline->process().pid(), "submission's baseline process"});
  const auto rest_began = steady::now();
  quiet.before(resting);
  if (unchecked && !verify(unchecked->outputs, unchecked->call, oracle_outputs ? &*oracle_outputs : nullptr))
    return fail(check_failure->first, check_failure->second);
  const double rested = measure_seconds_since(rest_began);
  if (!resting.empty() && rested < watched_rest_seconds)  // no process of the submission left to watch: no rest
    std::this_thread::sleep_for(std::chrono::duration<double>(watched_rest_seconds - rested));
  quiet.after(measure_seconds_since(rest_began));
  m.spent.checks = check_seconds;
  m.spent.rounds = measure_seconds_since(start) - check_seconds;
  if (const std::string why = quiet.verdict(); !why.empty()) return fail(Verdict::suspect, why);

  // The counters: one more call of each side on fresh inputs, outside the rounds, counted by the grader. Its time
  // is not a sample; its counts are the report's, never the score's.
  // The partners' yardsticks are counted here too (one call each, on the judge), each for its partner's report.
  std::vector<std::optional<CounterSet>> partner_counts(yardsticks.size());
  std::vector<std::string> partner_skipped(yardsticks.size());
  if (context.count_cpu) {
    const auto counters_began = steady::now();
    CpuCounters counters;
    const double flops = item.flops ? item.flops->evaluate(scope) : 0;
    struct Side {
      Worker* worker;
      const std::string* variant;
      const Timing* timing;
      int partner;  // the partner whose yardstick this is, or -1: the item's own sides
    };
    std::vector<Side> sides = {{&cand, &item.variant, &m.candidate, -1}, {baseline, &baseline_variant, &m.baseline, -1}};
    for (std::size_t i = 0; i < yardsticks.size(); ++i)
      sides.push_back({&j, &yardstick_variants[i], &yardsticks[i], static_cast<int>(i)});
    for (const auto& [worker, variant, timing, partner] : sides) {
      CounterSet counts;
      counts.label = timing->label;
      counts.flops = flops;
      const double call_seconds = summarize(timing->seconds).median;
      if (call_seconds > longest_counted_call) {
        std::string& skipped = partner < 0 ? counters.skipped : partner_skipped[static_cast<std::size_t>(partner)];
        skipped += (skipped.empty() ? "" : "; ") + counts.label + " takes " + measure_fixed(call_seconds, 1) +
                   " s a call: not counted";
        continue;
      }
      const std::string name = fresh.next(*variant, 1);
      TimedCalls calls;
      std::string why_not;
      const bool answered = count_call(
          worker->process().pid(), [&] { return worker->time(name, 0, 1, false, command_timeout, calls); }, counts, why_not);
      if (!answered) {
        const WorkerFailure failure = worker->failure();
        if (worker == &cand) context.retire_candidate_if_dead();
        const bool submission_code = worker == &cand || (partner < 0 && baseline_is_candidate_code);
        return fail(submission_code ? failure.verdict : Verdict::internal_error,
                    "the counted call of " + *variant + " failed: " + failure.details);
      }
      if (counters.unavailable.empty()) counters.unavailable = why_not;
      if (partner >= 0)
        partner_counts[static_cast<std::size_t>(partner)] = std::move(counts);
      else if (counts.threads > 0)
        counters.sides.push_back(std::move(counts));
    }
    m.cpu_counters = std::move(counters);
    m.spent.counters = measure_seconds_since(counters_began);
  }

  // Figures for the report only: the judge's professional implementations (cuBLAS, CUB, OpenBLAS), or
  // "candidate:<variant>" for the student's other versions (lab2's table of all six loop orders). Timed
  // after, on the inputs as set up (not fresh: they earn nothing). Every variant of a lab computes the same
  // function, so the judge's outputs are the expected ones; a candidate version whose outputs are wrong is
  // labelled so, not timed.
  // The oracle for those rows: where the baseline is the oracle's own code, its outputs of the last round's checked
  // call, and a candidate row's calls end on that call's inputs (lab 4's naive 128 x 4096 x 4096 product cost 1.7 s
  // to compute them again); else the judge's naive code on the inputs as set up (a command that is not fresh puts
  // them back), computed once, when the first candidate row needs it.
  const auto compare_began = steady::now();
  std::optional<std::vector<Array>> expected;
  auto expected_outputs = [&]() -> const std::vector<Array>* {
    if (oracle_outputs) return &*oracle_outputs;
    if (!expected) {
      context.progress("expected outputs", "performance: " + item.name + ": computing the expected outputs");
      std::vector<Array> outputs;
      double ignored = 0;
      if (!j.run(item.variant, timeout, outputs, ignored)) return nullptr;
      expected = std::move(outputs);
    }
    return &*expected;
  };
  for (const auto& entry : item.compare) {
    const bool on_candidate = entry.rfind(candidate_compare_prefix, 0) == 0;
    const std::string variant = on_candidate ? entry.substr(candidate_compare_prefix.size()) : entry;
    Worker& worker = on_candidate ? cand : j;
    TimedCalls calls;
    Timing t;
    t.label = (on_candidate ? "candidate " : "judge ") + variant;
    if (on_candidate && context.failed_correctness) {
      if (const std::string failure = context.failed_correctness(variant); !failure.empty()) {
        t.label += " (failed correctness: not timed)";
        m.compare.push_back(t);
        continue;
      }
    }
    if (on_candidate && expected_outputs() == nullptr) {
      const std::string why = j.failure().details;  // forget_judge() destroys j
      context.forget_judge();
      return fail(Verdict::internal_error, "the judge failed: " + why);
    }
    // The student's other versions earn nothing and their row is read by eye: a median of three calls shows it as
    // well as the lab's min_reps would, at half the cost (lab 1's naive rowptr is its slowest call), and with no
    // warm-up: the inputs were touched when they were set up and by the rounds, and a first call slowed by its
    // code's page faults is outvoted by the other two. The judge's rows keep min_reps and the warm-up: one may
    // stand in for the bound, below.
    // A candidate row's first call is the checked one, and the others follow unless it was long (long_compare_call).
    // On the oracle's inputs the calls are those of the rounds' last calls, the checked one the oracle's checked
    // call: never index 0, the inputs as set up (measure/fresh.h).
    if (!on_candidate) {
      if (!worker.alive() || !worker.time(variant, timing.warmup, timing.min_reps, false, command_timeout, calls)) {
        t.label += " (failed: " + worker.failure().details + ")";
        context.retire_candidate_if_dead();
      } else {
        t.seconds = calls.seconds;
        fill_rates(item, scope, t);
      }
      m.compare.push_back(t);
      continue;
    }
    int reps = std::min(timing.min_reps, candidate_compare_reps);
    if (oracle_outputs) reps = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(reps), oracle_call));
    auto on_inputs_of = [&](std::uint64_t calls_before_checked) {
      return oracle_outputs ? fresh.replay(variant, oracle_call - calls_before_checked) : variant;
    };
    TimedCalls others;
    if (!worker.alive() || !worker.time(on_inputs_of(0), 0, 1, true, command_timeout, calls) ||
        (!calls.seconds.empty() && calls.seconds.front() < long_compare_call && reps > 1 &&
         !worker.time(on_inputs_of(static_cast<std::uint64_t>(reps - 1)), 0, reps - 1, false, command_timeout, others))) {
      t.label += " (failed: " + worker.failure().details + ")";
      context.retire_candidate_if_dead();
    } else if (!check_outputs(calls.outputs, *expected_outputs(), tolerance).passed) {
      t.label += " (wrong answer: not timed)";
    } else {
      t.seconds = calls.seconds;
      t.seconds.insert(t.seconds.end(), others.seconds.begin(), others.seconds.end());
      fill_rates(item, scope, t);
    }
    m.compare.push_back(t);
  }

  m.spent.compare = measure_seconds_since(compare_began);

  // The bound (lab 6's transfer bound): the baseline when that is it, else timed now like a compare entry.
  const auto bound_began = steady::now();
  std::optional<Timing> bound;
  if (!item.bound.empty()) {
    if (baseline == &j && baseline_variant == item.bound) {
      bound = m.baseline;
    } else {
      for (const auto& t : m.compare)
        if (t.label == "judge " + item.bound && !t.seconds.empty()) bound = t;
      std::string bound_key = item.bound;
      for (const auto& [name, value] : params) bound_key += " " + name + "=" + shown(value);
      if (!bound && context.bounds_timed != nullptr) {
        if (const auto earlier = context.bounds_timed->find(bound_key); earlier != context.bounds_timed->end())
          bound = earlier->second;
      }
      if (!bound) {
        context.progress("bound", "performance: " + item.name + ": timing the judge's " + item.bound);
        TimedCalls calls;
        if (!timed(j, fresh.next(item.bound, timing.warmup + timing.min_reps), timing.warmup, timing.min_reps, false, calls))
          return fail(Verdict::internal_error, "the judge's " + item.bound + " failed: " + j.failure().details);
        bound = Timing{};
        bound->label = "judge " + item.bound;
        bound->seconds = calls.seconds;
        if (context.bounds_timed != nullptr) (*context.bounds_timed)[bound_key] = *bound;
      }
    }
  }

  m.spent.bound = measure_seconds_since(bound_began);

  fill_rates(item, scope, m.candidate);
  fill_rates(item, scope, m.baseline);
  bool yardstick_is_judge_code = !baseline_is_candidate_code;
  if (!cap.seconds.empty()) {
    // The yardstick is the faster of the candidate's own baseline and the judge's cap: slowing the baseline
    // down buys nothing beyond the judge's time.
    fill_rates(item, scope, cap);
    if (cap.median < m.baseline.median) {
      cap.label += " (caps " + m.baseline.label + ", which took " + measure_fixed(m.baseline.median * 1e3, 2) + " ms)";
      std::swap(cap, m.baseline);
      yardstick_is_judge_code = true;
    }
    m.compare.push_back(cap);
  }
  derive_speedup(m);
  if (bound) fill_rates(item, scope, *bound);
  if (auto raised = ceilings) {
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
  for (std::size_t i = 0; i < yardsticks.size(); ++i)
    partners.push_back(partner_measurement(*context.partners[i], scope, context.spec.gpu, context.calibration, m,
                                           yardsticks[i], bound, partner_counts[i], partner_skipped[i]));
  m.outside_checked = !context.earns_points || context.earns_points(item, m);
  for (std::size_t i = 0; i < partners.size() && !m.outside_checked; ++i)
    m.outside_checked = context.earns_points(*context.partners[i], partners[i]);
  if (m.outside_checked) {
    context.progress("cross-check", "performance: " + item.name + ": checking the times with the grader's own clock");
    const auto cross_check_began = steady::now();
    Worker& overhead_worker = baseline_is_candidate_code ? j : *baseline;
    const std::string overhead_variant =
        !baseline_is_candidate_code ? baseline_variant : (!item.baseline.cap.empty() ? item.baseline.cap : item.variant);
    // The rounds themselves first: where their outside time agrees, the extra runs could not disagree.
    const double reported = summarize(m.candidate.seconds).median;
    if (!rounds_agree_with_reports(cand_outside_seconds, cand_outside_calls, reported))
      unreconciled = cross_check_times(cand, item.variant, reported, overhead_worker, overhead_variant, reps_per_round,
                                       fresh, timeout);
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
    if (m.candidate.median > 0 && bound->median / m.candidate.median > believable_ceiling)
      return fail(Verdict::suspect, "measured " + measure_fixed(bound->median / m.candidate.median, 2) + " times faster than the " +
                                        bound->label + ", which no code beats by much: the timing was fooled (work "
                                        "outside the timed call, or kept from an earlier call?)");
  }
  context.partner_measurements = std::move(partners);
  return true;
}

}  // namespace grader
