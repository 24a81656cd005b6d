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

}  // namespace grader
