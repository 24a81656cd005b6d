#include "measure/interval.h"

#include <algorithm>
#include <random>

#include "measure/statistics.h"

namespace grader {

namespace {

// Fixed, not the run's seed: the interval is a function of the samples alone.
constexpr std::uint64_t bootstrap_seed = 0x5eed0f1a7e4d11ULL;

double median_of(std::vector<double>& values) { return summarize(values).median; }

// The percentile interval of the bootstrap estimates: the (1-c)/2 and (1+c)/2 quantiles.
ConfidenceInterval percentile_interval(std::vector<double> estimates) {
  std::sort(estimates.begin(), estimates.end());
  const double tail = (1 - interval_confidence) / 2;
  const auto at = [&](double q) {
    const auto index = static_cast<std::size_t>(q * static_cast<double>(estimates.size() - 1) + 0.5);
    return estimates[std::min(index, estimates.size() - 1)];
  };
  return {at(tail), at(1 - tail)};
}

}  // namespace

ConfidenceInterval median_interval(const std::vector<double>& samples) {
  if (samples.empty()) return {};
  std::mt19937_64 random(bootstrap_seed);
  std::uniform_int_distribution<std::size_t> pick(0, samples.size() - 1);
  std::vector<double> resample(samples.size()), estimates;
  estimates.reserve(bootstrap_resamples);
  for (int r = 0; r < bootstrap_resamples; ++r) {
    for (auto& value : resample) value = samples[pick(random)];
    estimates.push_back(median_of(resample));
  }
  return percentile_interval(std::move(estimates));
}

ConfidenceInterval median_ratio_interval(const std::vector<double>& numerator, const std::vector<double>& denominator) {
  if (numerator.empty() || denominator.empty()) return {};
  std::mt19937_64 random(bootstrap_seed);
  const bool paired = numerator.size() == denominator.size();
  std::uniform_int_distribution<std::size_t> pick_top(0, numerator.size() - 1), pick_bottom(0, denominator.size() - 1);
  std::vector<double> top(numerator.size()), bottom(denominator.size()), estimates;
  estimates.reserve(bootstrap_resamples);
  for (int r = 0; r < bootstrap_resamples; ++r) {
    if (paired) {
      for (std::size_t i = 0; i < top.size(); ++i) {
        const std::size_t pair = pick_top(random);
        top[i] = numerator[pair];
        bottom[i] = denominator[pair];
      }
    } else {
      for (auto& value : top) value = numerator[pick_top(random)];
      for (auto& value : bottom) value = denominator[pick_bottom(random)];
    }
    const double below = median_of(bottom);
    if (below > 0) estimates.push_back(median_of(top) / below);
  }
  if (estimates.empty()) return {};
  return percentile_interval(std::move(estimates));
}

}  // namespace grader
