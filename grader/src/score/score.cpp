#include "score/score.h"

#include <cmath>

namespace grader {

double tier_points(const std::vector<EvaluatedTier>& tiers, double value) {
  if (tiers.empty() || !std::isfinite(value) || value < tiers.front().at) return 0;
  for (std::size_t i = 1; i < tiers.size(); ++i) {
    const auto& low = tiers[i - 1];
    const auto& high = tiers[i];
    if (value < high.at) {
      const double fraction = (value - low.at) / (high.at - low.at);
      return low.points + fraction * (high.points - low.points);
    }
  }
  return tiers.back().points;
}

}  // namespace grader
