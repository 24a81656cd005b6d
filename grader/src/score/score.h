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
// the points at the interval's upper end, reaching at most `reach` (a fraction) above the median. Noise from other
// programs only ever adds time, so the faster end is the nearer to what the code does on a quiet machine, and a
// student is not marked down for a machine the grader could not keep quiet. But a busy machine slows the yardstick
// too, and widens the interval both ways: with no reach, lab 1's mid-tier submission earned 80 of 80 in a loaded
// class where a quiet grader gave it 47 to 66, for an interval that reached past full marks. The reach is what a
// quiet timing's spread allows (timing_doubt_reach), so a grade cannot rise because the machine was busy. Adding
// noise on purpose cannot gain anything: slower calls only lower the median, its interval and its reach.
double within_noise_points(const std::vector<EvaluatedTier>& tiers, double median, double high, double reach);

// How far above the median the benefit of the doubt reaches, for a lab whose `timing.target_noise` is the spread it
// accepts of one side's timings: a ratio of two sides each that steady moves by up to twice that.
inline double timing_doubt_reach(double target_noise) { return 2 * target_noise; }

// The rule in words, as reports and docs/student-guide.md state it.
inline constexpr const char* within_noise_rule =
    "scored at the upper end of its 95% confidence interval, up to twice the lab's target noise above the median "
    "(the benefit of the doubt)";

}  // namespace grader
