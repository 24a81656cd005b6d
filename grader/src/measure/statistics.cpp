#include "measure/statistics.h"

#include <algorithm>

namespace grader {

namespace {

// Linear interpolation between order statistics (the "type 7" quantile most tools use).
double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(position);
  const auto above = std::min(below + 1, sorted.size() - 1);
  const double weight = position - static_cast<double>(below);
  return sorted[below] * (1 - weight) + sorted[above] * weight;
}

}  // namespace

Summary summarize(std::vector<double> samples) {
  Summary summary;
  if (samples.empty()) return summary;
  std::sort(samples.begin(), samples.end());
  summary.median = quantile(samples, 0.5);
  summary.q1 = quantile(samples, 0.25);
  summary.q3 = quantile(samples, 0.75);
  return summary;
}

}  // namespace grader
