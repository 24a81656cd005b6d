// interval.h: how sure a timing is. A 95% confidence interval for the median of a timing, or for the ratio of two
// medians (a speedup), from the raw samples by a bootstrap with a fixed seed: the same samples always give the same
// interval, so a replay of a bundle recomputes exactly the interval its report printed.
//
//   std::vector<double> baseline = {2.0, 2.1, 1.9, 2.0}, candidate = {1.0, 1.05, 0.95, 1.0};
//   ConfidenceInterval speedup = median_ratio_interval(baseline, candidate);   // about [1.81, 2.21]
#pragma once

#include <cstdint>
#include <vector>

namespace grader {

struct ConfidenceInterval {
  double low = 0;
  double high = 0;
  bool contains(double value) const { return low <= value && value <= high; }
};

constexpr double interval_confidence = 0.95;
constexpr int bootstrap_resamples = 2000;

// The interval of median(samples). Empty samples give [0, 0].
ConfidenceInterval median_interval(const std::vector<double>& samples);

// The interval of median(numerator) / median(denominator). When both have as many samples, sample i of each was
// timed in the same round (measure/rounds.cpp interleaves baseline and candidate, `calls` of each per round), so
// pairs are resampled together: a change in the machine's load during a round moves both sides of that pair, and
// the interval is not widened by noise the ratio cancels. Otherwise the two are resampled independently.
ConfidenceInterval median_ratio_interval(const std::vector<double>& numerator, const std::vector<double>& denominator);

}  // namespace grader
