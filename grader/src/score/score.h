// score.h: pipeline stage 8. Turns a metric into points by the lab's tiers, and adds items up.
#pragma once

#include <vector>

namespace grader {

struct EvaluatedTier {
  double at = 0;      // threshold, already evaluated for this machine
  double points = 0;
};

// Points for `value`: 0 below the first tier, each tier's points at its threshold, linear in between,
// the last tier's points from its threshold up. Tiers must be ascending in `at`.
double tier_points(const std::vector<EvaluatedTier>& tiers, double value);

// Whether a metric known only to lie in [low, high] could earn different points across a tier threshold: some
// tier's `at` is above `low` and at most `high`, and the points at the two ends differ. Report-only items (no
// points) never straddle.
bool straddles_threshold(const std::vector<EvaluatedTier>& tiers, double low, double high);

// The rule for an item whose interval still straddles a threshold after it was measured again ("within noise"):
// the points at the interval's upper end. Noise from other programs only ever adds time, so the faster end is the
// nearer to what the code does on a quiet machine, and a student is not marked down for a machine the grader could
// not keep quiet. Adding noise on purpose cannot gain anything: slower calls only lower the median and its interval.
double within_noise_points(const std::vector<EvaluatedTier>& tiers, double median, double high);

// The rule in words, as reports and docs/student-guide.md state it.
inline constexpr const char* within_noise_rule =
    "scored at the upper end of its 95% confidence interval (the benefit of the doubt)";

}  // namespace grader
