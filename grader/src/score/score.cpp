#include "score/score.h"

#include <algorithm>
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

bool straddles_threshold(const std::vector<EvaluatedTier>& tiers, double low, double high) {
  if (!(low < high) || tier_points(tiers, low) >= tier_points(tiers, high)) return false;
  return std::any_of(tiers.begin(), tiers.end(), [&](const EvaluatedTier& tier) { return low < tier.at && tier.at <= high; });
}

double within_noise_points(const std::vector<EvaluatedTier>& tiers, double median, double high, double reach) {
  return std::max(tier_points(tiers, median), tier_points(tiers, std::min(high, median * (1 + reach))));
}

}  // namespace grader
