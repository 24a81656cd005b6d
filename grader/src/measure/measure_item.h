// measure_item.h: pipeline stage 7, the timing protocol for one performance item (docs/design.md, "Measuring"):
// fresh inputs for every call, baseline (and cap) and candidate timed in interleaved rounds while the other side
// is quiet, each round's last call checked against the judge's outputs for the same inputs, the trust checks,
// the outside cross-check, the rates and the physical ceilings. Scoring is the next stage (score/score_item.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "calibrate/calibration.h"
#include "report/report.h"
#include "run/worker.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

// What the measuring stage needs from the grading that runs it: the lab, the machine, and its workers (started
// or restarted by the grading, which keeps them between items).
struct MeasureContext {
  const LabSpec& spec;
  const Variables& machine;  // this machine's variables (`threads`, the calibrated scaling)
  const std::optional<Calibration>& calibration;
  std::function<void(const char* stage, const std::string& line)> progress;  // enters a stage of the grading's clock
  std::function<Worker&()> judge;       // the judge, started if need be
  // After the judge failed: the next judge() starts a fresh one. It destroys the judge, so read its failure() first.
  std::function<void()> forget_judge;
  std::function<Worker&()> candidate;   // the candidate, started if need be
  std::function<void()> retire_candidate_if_dead;
  // A worker of its own for the baseline: the submission's build (`on_candidate`) or the judge's.
  std::function<std::unique_ptr<Worker>(bool on_candidate)> start_baseline;
  // Whether a measurement, its times taken at their word, earns a point on some item scored from it (scoring is
  // the next stage's). Where none does, the outside cross-check is left out. Unset: always checked.
  // `timed_as`: the item measured, or one of its `partners` (below), each with its own yardstick's measurement.
  std::function<bool(const PerformanceItem& timed_as, const Measurement&)> earns_points = {};
  // The correctness item the candidate's `variant` failed first, or empty: such a version is never
  // timed, not even for a compare row. Unset: every version passed.
  std::function<std::string(const std::string& variant)> failed_correctness = {};
  // Whether the measurement so far has decided its points on every item scored from it: every value in its
  // metric's interval (widened, against stopping on a lucky few rounds) earns the same points. Asked after each
  // round past the lab's min_reps, or from the second pair of calls once the quiet watch has watched long enough
  // (measure/quiet.h); `few_pairs` while they are fewer than min_reps (the interval is then widened more,
  // score/score_item.h). True ends the rounds. Unset: the rounds run to the lab's noise target or budget.
  // Asked of the item and of each partner, each with its own measurement; all must be decided.
  std::function<bool(const PerformanceItem& timed_as, const Measurement&, bool few_pairs)> points_decided = {};
  // The judge's bounds (`bound`) timed earlier in this grading, by bound variant and parameters: lab 1's two items
  // both hold their 10000 x 10000 product to read_a, and the bound is what the machine streams in that minute, not
  // a figure of the submission, so the second item takes the first's. Null: every item times its own.
  std::map<std::string, Timing>* bounds_timed = nullptr;
  // Count cycles, instructions and cache misses over one more call of the candidate and of the baseline, after the
  // rounds (measure/cpu_counters.h): a CPU lab's grading with GradeOptions::counters.
  bool count_cpu = false;
  // Items that time the very calls this item times (the same variant on the same inputs, checked alike) against
  // another of the judge's yardsticks (lab 1's speedup over the naive loop and its fraction of the tuned matvec):
  // each partner's yardstick is timed in the same rounds, just before the item's own, so one candidate call per
  // round serves every item and the student's code is timed once. The grading chooses them (measure/partners.h);
  // they have no compare rows. After a measurement that passed, `partner_measurements` holds one per
  // partner, in order, scored by its own tiers: its candidate the item's, its baseline its own yardstick's.
  std::vector<const PerformanceItem*> partners = {};
  std::vector<Measurement> partner_measurements = {};
  // Whether the item's `compare` rows are timed (measure/compare_rows.h). A measurement again that is pooled into
  // the first (pipeline/performance.cpp) leaves them out: they earn nothing, and the first measurement's are the
  // report's. Its bound, where a judge's row stood in for it, is then timed on its own (measure/bound.h).
  bool compare_rows = true;
};


// The item's evaluated inputs and its seeds, each derived from the run's secret seed.
struct MeasureInputs {
  Variables params;           // the item's parameters, evaluated on this machine
  Variables baseline_params;  // the same with `baseline.params` applied
  Tolerance tolerance;        // for the check of the timed calls' outputs
  struct Seeds {
    std::uint64_t inputs = 0;  // the inputs set up (`performance/<item>`)
    std::uint64_t fresh = 0;   // the changes of every fresh call (`fresh/<item>`)
    std::uint64_t checks = 0;  // which rounds are checked, and the rounds' lengths (`check/<item>`)
  } seeds;
};

// Times one item. True: `test.measurement` holds the timings, rates and roofline, ready to be scored. False:
// `test` holds the verdict (wrong_answer, suspect, crash, time_limit, internal_error, ...) and why.
bool measure_item(const PerformanceItem& item, const MeasureInputs& in, MeasureContext& context, TestResult& test);

}  // namespace grader
