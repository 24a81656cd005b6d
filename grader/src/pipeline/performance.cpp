// performance.cpp: stages 7 and 8 for the performance items. Which items can be timed here (prerequisites, the
// machine), one measurement per measurement key (measure/measure_item.h), then each item's own tiers
// (score/score_item.h).
#include <algorithm>
#include <set>
#include <sstream>

#include "calibrate/calibration.h"
#include "measure/foreign_load.h"
#include "measure/measure_item.h"
#include "measure/partners.h"
#include "measure/pool.h"
#include "pipeline/grading.h"
#include "score/score_item.h"

namespace grader::pipeline {

void Grading::measure(const PerformanceItem& item, TestResult& test) {
  MeasureInputs in;
  in.params = case_params(item.params, machine_);
  in.baseline_params = with_overrides(in.params, item.baseline.params, machine_);
  in.tolerance = tolerance_for(spec_, std::nullopt, item.tolerance);
  in.seeds.inputs = inputs_seed(in.params);
  in.seeds.fresh = derive_seed(options_.seed, "fresh/" + item.name);
  in.seeds.checks = derive_seed(options_.seed, "check/" + item.name);
  // The items scored from this one measurement (the same measurement key): item itself among them.
  std::vector<const PerformanceItem*> sharing;
  for (const auto& other : spec_.performance)
    if (measurement_key(other) == measurement_key(item)) sharing.push_back(&other);
  // Each item scored from this measurement or from a partner's (measure/partners.h) scores its own.
  const auto scored_with = [this, &sharing](const PerformanceItem& timed_as) {
    std::vector<const PerformanceItem*> items;
    if (measurement_key(timed_as) == measurement_key(*sharing.front())) return sharing;
    for (const auto& other : spec_.performance)
      if (measurement_key(other) == measurement_key(timed_as)) items.push_back(&other);
    return items;
  };
  MeasureContext context{spec_,
                         machine_,
                         calibration_,
                         [this](const char* stage, const std::string& line) { progress(stage, line); },
                         [this]() -> Worker& { return judge(); },
                         [this] { judge_.reset(); },
                         [this]() -> Worker& { return candidate(); },
                         [this] { retire_candidate_if_dead(); },
                         [this](bool on_candidate) {
                           return start_worker(on_candidate ? candidate_build_.executable : lab_.judge,
                                               on_candidate ? "baseline-candidate" : "baseline-judge");
                         },
                         [this, &scored_with](const PerformanceItem& timed_as, const Measurement& m) {
                           for (const auto* other : scored_with(timed_as)) {
                             TestResult trial;
                             trial.measurement = m;
                             score_measurement(*other, scope_of(*other), trial, spec_.timing.target_noise);
                             if (trial.score > 0) return true;
                           }
                           return false;
                         },
                         [this](const std::string& variant) { return failed_correctness(variant); },
                         [this, &scored_with](const PerformanceItem& timed_as, const Measurement& m, bool few_pairs) {
                           for (const auto* other : scored_with(timed_as))
                             if (!points_decided(*other, scope_of(*other), m, few_pairs)) return false;
                           return true;
                         },
                         &bounds_timed_};
  context.count_cpu = options_.counters && !spec_.gpu;
  context.partners = partners_of(item);
  Variables scope = scope_of(item);
  ForeignLoad load;
  if (!measure_item(item, in, context, test)) {
    share_with_partners(context.partners, test, {});
    return;
  }
  Disturbance disturbed = disturbance(item, scope, load);
  // The counters are the first measurement's: a measurement again times, it does not count again (a replaced one
  // hands its counters on, below).
  context.count_cpu = false;

  // An interval that holds a tier threshold of this item, or of another item scored from the same timing, could
  // land on either side of it on a regrade: measure again and pool, within the lab's budget. Items whose
  // intervals are clear never come here, so their grading takes as long as it did.
  std::vector<Measurement> partner_measurements = std::move(context.partner_measurements);
  const auto straddles = [&] {
    for (const auto* other : sharing)
      if (straddles_tiers(*other, scope_of(*other), *test.measurement)) return true;
    for (std::size_t i = 0; i < context.partners.size(); ++i)
      for (const auto* other : scored_with(*context.partners[i]))
        if (straddles_tiers(*other, scope_of(*other), partner_measurements[i])) return true;
    return false;
  };
  // Pooling narrows an interval about as 1/sqrt(pairs): where no straddling item's interval could leave its
  // thresholds even with the pairs the budget left would add (score_item.h, pooling_may_decide), measuring again would
  // only spend the budget to end within noise, and the rule for that applies now as it would at the budget's end. Lab
  // 1's mid-tier copies, whose bandwidth sat within 1% of its 0.55 tier, spent the whole 10 s to end so. The model
  // trusts the first measurement's interval, which a few unlucky rounds can make too wide or too narrow: one
  // measurement again is always taken, and the model decides only whether to go on.
  const double budget = spec_.timing.noise_retry_seconds;
  const auto retries_began = steady::now();
  const auto may_decide = [&] {
    // The pairs a second buys, from what the rounds so far spent on theirs (the first measurement's rounds and the
    // measurements again whole: a measurement again that spends more on other work only stops the retries later).
    const double spent = test.measurement->spent.rounds + seconds_since(retries_began);
    const double growth = spent > 0 ? 1 + std::max(0.0, budget - seconds_since(retries_began)) / spent : 1;
    for (const auto* other : sharing)
      if (straddles_tiers(*other, scope_of(*other), *test.measurement) &&
          pooling_may_decide(*other, scope_of(*other), *test.measurement, growth))
        return true;
    for (std::size_t i = 0; i < context.partners.size(); ++i)
      for (const auto* other : scored_with(*context.partners[i]))
        if (straddles_tiers(*other, scope_of(*other), partner_measurements[i]) &&
            pooling_may_decide(*other, scope_of(*other), partner_measurements[i], growth))
          return true;
    return false;
  };
  const auto ceilings = roofline_ceilings(item, scope, spec_.gpu, calibration_);
  bool measured_again = false;
  for (int retry = 1; (disturbed.measure_again || (straddles() && (retry == 1 || may_decide()))) && seconds_since(retries_began) < budget;
       ++retry) {
    measured_again = true;
    // The compare rows earn nothing, and the first measurement's are the report's: a measurement again that is
    // pooled into it leaves them out (lab 1's student rowptr and contiguous rows, 1.4 to 2.6 s a time). One that
    // replaces it, its threads short of cores, times its own.
    context.compare_rows = disturbed.measure_again;
    progress("timing", "performance: " + item.name + ": " +
             (disturbed.measure_again ? "disturbed (" + disturbed.what + ")" : "within noise of a tier threshold") +
             ", measuring again (" + std::to_string(retry) + ")");
    // Seeds of their own for the fresh calls and the checks, derived from the run's: a replay of the bundle measures
    // again exactly alike. The inputs set up stay (the workers hold them: no setup again, 0.85 s a worker at lab 1's
    // 800 MB); every call of the measurement again is fresh by its own seed, as across items.
    MeasureInputs again_in = in;
    const std::string suffix = "#" + std::to_string(retry);
    again_in.seeds.fresh = derive_seed(options_.seed, "fresh/" + item.name + suffix);
    again_in.seeds.checks = derive_seed(options_.seed, "check/" + item.name + suffix);
    TestResult again = test;
    again.measurement.reset();
    load = ForeignLoad();
    // A measurement again is held to every check the first one was: wrong outputs or a fooled timer stand.
    if (!measure_item(item, again_in, context, again)) {
      test = again;
      share_with_partners(context.partners, test, {});
      return;
    }
    const Disturbance again_disturbed = disturbance(item, scope, load);
    if (disturbed.measure_again) {
      // What was timed while the item's threads did not have their cores is no measurement of the submission: it
      // is replaced, not pooled, by this one (itself replaced in turn if it too was short of cores).
      const auto counted = test.measurement->cpu_counters;
      const double counting = test.measurement->spent.counters;
      test.measurement = again.measurement;
      test.measurement->cpu_counters = counted;
      test.measurement->spent.counters = counting;
      for (std::size_t i = 0; i < partner_measurements.size(); ++i) {
        const auto partner_counted = partner_measurements[i].cpu_counters;
        partner_measurements[i] = context.partner_measurements[i];
        partner_measurements[i].cpu_counters = partner_counted;
      }
      disturbed = again_disturbed;
    } else if (!again_disturbed.measure_again) {
      if (!pool_measurements(item, scope, ceilings, *test.measurement, *again.measurement)) break;
      for (std::size_t i = 0; i < partner_measurements.size(); ++i) {
        const PerformanceItem& partner = *context.partners[i];
        const Variables partner_scope = scope_of(partner);
        pool_measurements(partner, partner_scope, roofline_ceilings(partner, partner_scope, spec_.gpu, calibration_),
                          partner_measurements[i], context.partner_measurements[i]);
      }
      if (disturbed.what.empty()) disturbed = again_disturbed;
    }  // a measurement that had its cores is kept, and one that did not never pooled into it
    test.measurement->noise_retries = retry;
    for (auto& partner : partner_measurements) partner.noise_retries = retry;
  }
  if (measured_again) test.measurement->spent.retries = seconds_since(retries_began);
  if (!disturbed.what.empty()) {
    disturbed_items_.push_back(item.name + " (" + disturbed.what + ")");
    for (const PerformanceItem* partner : context.partners)
      disturbed_items_.push_back(partner->name + " (" + disturbed.what + ")");
  }
  share_with_partners(context.partners, test, partner_measurements);
  score_measurement(item, scope, test, spec_.timing.target_noise);
}

std::vector<const PerformanceItem*> Grading::partners_of(const PerformanceItem& item) {
  // Not on a GPU yet: sharing rounds there is unproven (a kernel's yardstick beside another's on one device).
  if (spec_.gpu) return {};
  std::vector<const PerformanceItem*> partners;
  std::set<std::string> keys{measurement_key(item)};
  std::string missing;
  for (const auto& other : spec_.performance) {
    const std::string key = measurement_key(other);
    // Each measurement once: one partner per key (the items sharing its key score it too), none measured already,
    // none this grading leaves out (--only, not graded, not measurable here, a prerequisite failed).
    if (keys.count(key) || measurements_.count(key) || !shares_candidate_calls(item, other)) continue;
    if (other.visibility != Visibility::visible && !options_.include_hidden) continue;
    if (!selected(other.name) || !machine_shortfall(other).empty() || !prerequisites_passed(other, missing)) continue;
    keys.insert(key);
    partners.push_back(&other);
  }
  return partners;
}

void Grading::share_with_partners(const std::vector<const PerformanceItem*>& partners, const TestResult& test,
                                  const std::vector<Measurement>& measured) {
  // Stored as the partner's own measurement, which grade_performance() then scores by the partner's tiers; a
  // measurement that failed (wrong outputs, a fooled timer) fails every item that timed those calls.
  for (std::size_t i = 0; i < partners.size(); ++i) {
    TestResult shared = test;
    shared.measurement.reset();
    if (i < measured.size()) {
      shared.verdict = Verdict::passed;  // measured: the partner's tiers say how well (grade_performance)
      shared.measurement = measured[i];
    }
    measurements_[measurement_key(*partners[i])] = shared;
  }
}

std::uint64_t Grading::inputs_seed(const Variables& params) const {
  std::ostringstream key;
  key.precision(17);
  key << "performance/";
  for (const auto& [name, value] : params) key << " " << name << "=" << value;
  return derive_seed(options_.seed, key.str());
}

Variables Grading::scope_of(const PerformanceItem& item) const {
  Variables scope = machine_;
  for (const auto& [name, value] : case_params(item.params, machine_)) scope[name] = value;
  return scope;
}

Grading::Disturbance Grading::disturbance(const PerformanceItem& item, const Variables& scope, const ForeignLoad& load) {
  const double threads = machine_.at("threads");
  const double item_threads = std::clamp(item.cpu_threads.evaluate(scope), 1.0, std::max(1.0, threads));
  // Noticeable load is named in the report; it takes CPU time from the item itself only when the item's threads
  // and the load together need more cores than there are (a program spinning on one core of two leaves a
  // one-thread item its core, but halves lab3's all-thread run), and only then is the measurement worth nothing.
  if (const double cores = load.cores(); cores > noticeable_foreign_cores)
    return {"other programs used " + fixed(cores, 2) + " of a core",
            cores + item_threads > threads + noticeable_foreign_cores};
  // Several threads, on a machine whose calibration found them faster than one: ask it whether it still is.
  const double calibrated = machine_.at("cpu_scaling");
  if (probe_unavailable_ || item_threads < 2 || calibrated < 1.25) return {};
  const std::optional<double> now = probe_cpu_scaling(env_);
  if (!now) {
    probe_unavailable_ = true;
    return {};
  }
  if (*now >= short_of_cores_share * calibrated) return {};
  return {"right after it, all threads computed only " + fixed(*now, 2) + "x what one thread does, against " +
              fixed(calibrated, 2) + "x when this machine was calibrated",
          true};
}

std::string Grading::machine_shortfall(const PerformanceItem& item) const {
  std::string shortfall;
  for (const auto& [name, least] : item.requires_machine) {
    const double value = machine_.at(name);
    if (value + 1e-9 >= least) continue;
    shortfall += (shortfall.empty() ? "" : "; ") + name + " is " + fixed(value, 2) + " here, the item needs " + fixed(least, 2);
    if (name == "memory_scaling") shortfall += " (all threads read only " + fixed(value, 2) + "x what one thread reads)";
    if (name == "cpu_scaling") shortfall += " (all threads compute only " + fixed(value, 2) + "x what one thread does)";
  }
  return shortfall;
}

void Grading::begin_timing() {
  if (timing_started_) return;
  timing_started_ = true;
  finish_inspect();  // its tools ran beside correctness; none may run beside the timing
  // Correctness is done with its processes (the race detectors' build among them): none may run beside the timing.
  retire_all_variants();
  if (options_.timing_gate != nullptr) {
    // No worker of this grading lives while it waits for its turn: a worker's limits (the wall clock above all) run
    // from its start, and a classmate's timing, one that hangs to the lab's limit included, would be charged to this
    // grading's judge. The judge is started afresh once the turn comes.
    if (judge_) judge_->quit();
    judge_.reset();
    work_turn_.reset();  // this grading's own work would keep its timing waiting
    timing_turn_.emplace(*options_.timing_gate);
  }
}

void Grading::grade_performance(const PerformanceItem& item, TestResult& test) {
  test.kind = TestKind::performance;
  test.max_score = item.max_points();
  test.visibility = item.visibility;
  if (options_.quick || !options_.sanitize.empty()) {
    test.verdict = Verdict::not_run;
    test.details = options_.quick ? "--quick: correctness only" : "--sanitize: correctness only (the sanitizer distorts timing)";
    return;
  }
  if (const std::string shortfall = machine_shortfall(item); !shortfall.empty()) {
    test.verdict = Verdict::not_run;
    test.max_score = 0;
    test.details = "not measurable on this machine, so its " + fixed(item.max_points(), 0) +
                   " points are left out of the total here: " + shortfall;
    return;
  }
  std::string missing;
  if (!prerequisites_passed(item, missing)) {
    test.verdict = Verdict::not_run;
    test.details = "needs these correctness items to pass first: " + missing;
    return;
  }
  // A version that failed correctness is never timed, whatever the item's `requires` say: a version that hangs
  // would run to the lab's wall-clock limit, while in a batch every classmate waits for the timing turn.
  for (const std::string* variant : {&item.variant, &item.baseline.variant}) {
    const bool on_candidate = variant == &item.variant || item.baseline.process == BaselineSpec::Process::candidate;
    if (!on_candidate || variant->empty()) continue;
    if (const std::string failure = failed_correctness(*variant); !failure.empty()) {
      test.verdict = Verdict::not_run;
      test.details = "the " + *variant + " version failed correctness (" + failure + "), so it is not timed";
      return;
    }
  }
  const std::string key = measurement_key(item);
  auto done = measurements_.find(key);
  if (done == measurements_.end()) {
    // A batch grades several students at once but times one at a time, with nothing else of the class running
    // beside it. The turn is taken only when there is something to time, so students who fail correctness
    // never queue for it.
    begin_timing();
    // A fresh candidate for every measurement: nothing an earlier item's calls did is inherited. Except where the
    // last measurement's candidate passed it and holds the very inputs this one sets up (the same parameters:
    // inputs_seed): lab 1's second item would set up its 800 MB A again, 0.85 s. Its calls are fresh all the same,
    // their changes drawn from this item's seed, and every check of this item holds it as it would a new one.
    const bool keep_candidate = candidate_ && candidate_->alive() && candidate_passed_last_measurement_ &&
                                candidate_->holds_inputs(case_params(item.params, machine_),
                                                         inputs_seed(case_params(item.params, machine_)));
    if (candidate_ && !keep_candidate) {
      candidate_->quit();
      harvest_output(*candidate_);
      candidate_.reset();
    }
    measure(item, test);
    candidate_passed_last_measurement_ = test.verdict == Verdict::passed || test.verdict == Verdict::below_threshold;
    queue_counters(item, test);  // profiled after the last timed item (pipeline/counters_stage.cpp)
    measurements_[key] = test;
    return;
  }
  // Same timing, this item's own tiers.
  test.verdict = done->second.verdict;
  test.details = done->second.details;
  test.measurement = done->second.measurement;
  test.score = 0;
  if (test.measurement && (test.verdict == Verdict::passed || test.verdict == Verdict::below_threshold))
  {
    Variables scope = machine_;
    for (const auto& [name, value] : case_params(item.params, machine_)) scope[name] = value;
    test.measurement->within_noise = false;
    score_measurement(item, scope, test, spec_.timing.target_noise);
  }
}

}  // namespace grader::pipeline
