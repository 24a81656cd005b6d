// score_item.h: one timed performance item into its verdict and points: the roofline must be known where the
// item is graded by it, nothing past what is physically possible is believed, and then the tiers decide.
#pragma once

#include "measure/interval.h"
#include "report/report.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

// `test.measurement` is filled in; `scope` holds the machine's variables and the item's parameters.
// Also sets the metric's confidence interval; an interval that holds a tier threshold scores by
// within_noise_points (score.h), its reach from the lab's `target_noise` (timing_doubt_reach), and says so in the
// details.
void score_measurement(const PerformanceItem& item, const Variables& scope, TestResult& test, double target_noise);

// The 95% confidence interval of the item's metric from the measurement's raw samples (measure/interval.h).
ConfidenceInterval metric_interval(const PerformanceItem& item, const Measurement& m);

// Whether that interval holds one of the item's tier thresholds, so measuring again could move its points.
bool straddles_tiers(const PerformanceItem& item, const Variables& scope, const Measurement& m);

// Whether pooling more rounds could move the metric's interval off every tier threshold it holds, where the pooled
// measurement would have `growth` times the pairs `m` has: the interval's reach on each side of the median shrinks
// about as 1/sqrt(pairs) (measure/interval.h), and the median is taken where it is (it moves either way). False: a
// measurement again within that budget would most likely end still within noise, so the rule for that
// (within_noise_points, score.h) may as well apply now (pipeline/performance.cpp).
//
//   median 0.550 in [0.542, 0.560], a tier at 0.55: false at any growth (the median sits on the threshold);
//   median 0.590 in [0.574, 0.608], a tier at 0.60: its reach toward the tier, 0.018, must shrink below the
//   distance, 0.010: true from growth (0.018 / 0.010)^2 = 3.24.
bool pooling_may_decide(const PerformanceItem& item, const Variables& scope, const Measurement& m, double growth);

// Whether the measurement's points are settled: every value in the metric's interval, widened by half its width on
// each side (a few lucky rounds give a narrow interval; more rounds only narrow it), earns the same points. A
// roofline item with a bound is never settled before the bound is timed: the bound can raise its ceiling.
// `few_pairs`: the measurement has fewer pairs than the lab's min_reps (two of lab 4's naive 2048^3 yardstick, 5 s
// each, rather than three), whose spread need not show the machine's noise yet: the interval is then widened by its
// whole width on each side, and further by `few_pairs_margin` of its ends (a value a quarter off).
constexpr double few_pairs_margin = 1.25;
bool points_decided(const PerformanceItem& item, const Variables& scope, const Measurement& m, bool few_pairs = false);

}  // namespace grader
