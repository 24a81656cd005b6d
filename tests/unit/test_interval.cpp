// test_interval.cpp: the confidence intervals of a timing (grader/src/measure/interval.h) and the straddle decision
// and rule built on them (grader/src/score/score.h, straddles_threshold and within_noise_points).
#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "measure/interval.h"
#include "score/score.h"

using grader::ConfidenceInterval;
using grader::EvaluatedTier;
using grader::median_interval;
using grader::median_ratio_interval;
using grader::straddles_threshold;
using grader::tier_points;
using grader::within_noise_points;

namespace {

// A speedup item with lab1's tiers of old: nothing below 1.3x, 20 points from 1.8x.
const std::vector<EvaluatedTier> lab1_speedup = {{1.3, 0}, {1.8, 20}};

// n samples around `centre`, spread +-`spread` evenly (deterministic, so the test is too).
std::vector<double> spread_around(double centre, double spread, int n) {
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) samples.push_back(centre + spread * (2.0 * ((i * 7) % n) / (n - 1) - 1));
  return samples;
}

}  // namespace

TEST_CASE("a median's interval holds the median and lies within the samples") {
  const std::vector<double> samples = spread_around(1.0, 0.1, 23);
  const ConfidenceInterval interval = median_interval(samples);
  CHECK(interval.contains(1.0));
  CHECK(interval.low >= 0.9);
  CHECK(interval.high <= 1.1);
  CHECK(interval.low < interval.high);
}

TEST_CASE("identical samples leave no doubt: the interval is a point") {
  const ConfidenceInterval interval = median_interval({2.0, 2.0, 2.0, 2.0, 2.0});
  CHECK(interval.low == doctest::Approx(2.0));
  CHECK(interval.high == doctest::Approx(2.0));
}

TEST_CASE("the same samples give the same interval every time (a replay recomputes it exactly)") {
  const std::vector<double> samples = spread_around(3.0, 0.5, 15);
  const ConfidenceInterval first = median_interval(samples), second = median_interval(samples);
  CHECK(first.low == second.low);
  CHECK(first.high == second.high);
}

TEST_CASE("more samples of the same spread give a narrower interval") {
  const ConfidenceInterval few = median_interval(spread_around(1.0, 0.2, 9));
  const ConfidenceInterval many = median_interval(spread_around(1.0, 0.2, 201));
  CHECK(many.high - many.low < few.high - few.low);
}

TEST_CASE("paired samples: load that slows both sides of a round alike does not widen a speedup's interval") {
  // Round i is slowed by a factor shared by baseline and candidate; the ratio is exactly 2 in every round.
  std::vector<double> baseline, candidate, shuffled_baseline;
  for (int i = 0; i < 20; ++i) {
    const double load = 1.0 + 0.05 * (i % 5);
    baseline.push_back(2.0 * load);
    candidate.push_back(1.0 * load);
  }
  const ConfidenceInterval paired = median_ratio_interval(baseline, candidate);
  CHECK(paired.contains(2.0));
  CHECK(paired.high - paired.low < 0.25);
  // Unequal counts cannot be paired: resampled independently, the shared load no longer cancels.
  std::vector<double> one_short(baseline.begin(), baseline.end() - 1);
  const ConfidenceInterval independent = median_ratio_interval(one_short, candidate);
  CHECK(independent.contains(2.0));
  CHECK(independent.high - independent.low > paired.high - paired.low);
}

TEST_CASE("no samples, no interval") {
  CHECK(median_interval({}).high == 0);
  CHECK(median_ratio_interval({}, {1.0}).high == 0);
  CHECK(median_ratio_interval({1.0}, {}).high == 0);
}

TEST_CASE("an interval that holds a threshold straddles it") {
  CHECK(straddles_threshold(lab1_speedup, 1.75, 1.85));  // full marks at 1.8
  CHECK(straddles_threshold(lab1_speedup, 1.25, 1.35));  // nothing below 1.3
  CHECK(straddles_threshold(lab1_speedup, 1.2, 1.9));    // both
}

TEST_CASE("an interval clear of every threshold does not straddle") {
  CHECK_FALSE(straddles_threshold(lab1_speedup, 1.85, 1.95));  // above full marks: 20 points either way
  CHECK_FALSE(straddles_threshold(lab1_speedup, 1.0, 1.25));   // below the first tier: 0 either way
  CHECK_FALSE(straddles_threshold(lab1_speedup, 1.5, 1.6));    // on the ramp: the points follow the median
  CHECK_FALSE(straddles_threshold(lab1_speedup, 1.8, 1.9));    // from the threshold up: full marks throughout
  CHECK_FALSE(straddles_threshold(lab1_speedup, 1.85, 1.75));  // not an interval
}

TEST_CASE("an item for the report only never straddles: its points cannot change") {
  CHECK_FALSE(straddles_threshold({{1.0, 0}}, 0.9, 1.1));
}

TEST_CASE("within noise, the item scores at its interval's upper end, reaching at most twice the target noise") {
  const double reach = grader::timing_doubt_reach(0.03);  // lab 1's target_noise
  // The reference's median fell just under full marks, its interval reaches over: full marks.
  CHECK(within_noise_points(lab1_speedup, 1.78, 1.84, reach) == doctest::Approx(20));
  // A median under the first tier, an interval reaching onto the ramp: the points at the upper end.
  CHECK(within_noise_points(lab1_speedup, 1.28, 1.355, reach) == doctest::Approx(2.2));
  // Never fewer than the median earns.
  CHECK(within_noise_points(lab1_speedup, 1.55, 1.55, reach) == doctest::Approx(10));
  // A busy machine's wide interval (1.35x to 1.95x around 1.6x) reaches past full marks; the doubt reaches 6% above
  // the median, 1.696x: 15.8 points, not 20. Without the reach the load would have raised the grade.
  CHECK(within_noise_points(lab1_speedup, 1.6, 1.95, reach) == doctest::Approx(tier_points(lab1_speedup, 1.6 * 1.06)));
  CHECK(within_noise_points(lab1_speedup, 1.6, 1.95, reach) < 20 - 1);
  CHECK(within_noise_points(lab1_speedup, 1.6, 1.95, reach) > tier_points(lab1_speedup, 1.6));
}
