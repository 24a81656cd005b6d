#include "measure/compare_rows.h"

#include <algorithm>
#include <string>
#include <vector>

#include "check/outputs.h"

namespace grader {

namespace {

constexpr int candidate_compare_reps = 3;  // calls timed for a `candidate:<variant>` row of `compare`
// A `candidate:<variant>` row whose first call takes this long keeps that one call: lab 4's skeleton's naive
// register-blocked function takes 1.5 s a call at 128 x 4096 x 4096, and a call that long is not moved by what a
// call's first microseconds cost; three of them were 4.5 s of its grading, for a row that earns nothing.
constexpr double long_compare_call = 0.5;

}  // namespace

bool time_compare_rows(TimedSides& sides, const Rounds& rounds, Measurement& m) {
  const PerformanceItem& item = sides.item;
  MeasureContext& context = sides.context;
  const Variables& scope = sides.scope;
  const double timeout = sides.timeout;
  FreshCalls& fresh = sides.fresh;
  Worker& cand = sides.cand;
  Worker& j = sides.judge;
  const Tolerance& tolerance = sides.in.tolerance;
  const auto& timing = context.spec.timing;
  const std::optional<std::vector<Array>>& oracle_outputs = rounds.oracle_outputs;
  const std::uint64_t oracle_call = rounds.oracle_call;

  // Figures for the report only: the judge's professional implementations (cuBLAS, CUB, OpenBLAS), or
  // "candidate:<variant>" for the student's other versions (lab2's table of all six loop orders). Timed
  // after, on the inputs as set up (not fresh: they earn nothing). Every variant of a lab computes the same
  // function, so the judge's outputs are the expected ones; a candidate version whose outputs are wrong is
  // labelled so, not timed.
  // The oracle for those rows: where the baseline is the oracle's own code, its outputs of the last round's checked
  // call, and a candidate row's calls end on that call's inputs (lab 4's naive 128 x 4096 x 4096 product cost 1.7 s
  // to compute them again); else the judge's naive code on the inputs as set up (a command that is not fresh puts
  // them back), computed once, when the first candidate row needs it.
  const auto compare_began = measure_clock::now();
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
      return sides.fail(Verdict::internal_error, "the judge failed: " + why);
    }
    // The student's other versions earn nothing and their row is read by eye: a median of three calls shows it as
    // well as the lab's min_reps would, at half the cost (lab 1's naive rowptr is its slowest call), and with no
    // warm-up: the inputs were touched when they were set up and by the rounds, and a first call slowed by its
    // code's page faults is outvoted by the other two. The judge's rows keep min_reps and the warm-up: one may
    // stand in for the bound (measure/bound.h).
    // A candidate row's first call is the checked one, and the others follow unless it was long (long_compare_call).
    // On the oracle's inputs the calls are those of the rounds' last calls, the checked one the oracle's checked
    // call: never index 0, the inputs as set up (measure/fresh.h).
    if (!on_candidate) {
      if (!worker.alive() || !worker.time(variant, timing.warmup, timing.min_reps, false, timeout, calls)) {
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
    if (!worker.alive() || !worker.time(on_inputs_of(0), 0, 1, true, timeout, calls) ||
        (!calls.seconds.empty() && calls.seconds.front() < long_compare_call && reps > 1 &&
         !worker.time(on_inputs_of(static_cast<std::uint64_t>(reps - 1)), 0, reps - 1, false, timeout, others))) {
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
  return true;
}

}  // namespace grader
