// test_score.cpp: tier_points (grader/src/score/score.h), the rule that turns a measured metric into points.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "score/score.h"

using grader::EvaluatedTier;
using grader::tier_points;

namespace {

// A speedup item with lab1's tiers of old: nothing below 1.3x, 20 points from 1.8x.
const std::vector<EvaluatedTier> two_tiers = {{1.3, 0}, {1.8, 20}};
// Three tiers, the middle one a step: 0 at 1, 10 at 2, 30 at 4.
const std::vector<EvaluatedTier> three_tiers = {{1, 0}, {2, 10}, {4, 30}};

}  // namespace

TEST_CASE("below the first tier earns nothing") {
  CHECK(tier_points(two_tiers, 0.0) == 0);
  CHECK(tier_points(two_tiers, 1.0) == 0);
  CHECK(tier_points(two_tiers, 1.2999) == 0);
  CHECK(tier_points(two_tiers, -5.0) == 0);
}

TEST_CASE("at each tier, that tier's points") {
  CHECK(tier_points(two_tiers, 1.3) == doctest::Approx(0));
  CHECK(tier_points(two_tiers, 1.8) == doctest::Approx(20));
  CHECK(tier_points(three_tiers, 1) == doctest::Approx(0));
  CHECK(tier_points(three_tiers, 2) == doctest::Approx(10));
  CHECK(tier_points(three_tiers, 4) == doctest::Approx(30));
}

TEST_CASE("linear between tiers") {
  CHECK(tier_points(two_tiers, 1.55) == doctest::Approx(10));
  CHECK(tier_points(two_tiers, 1.425) == doctest::Approx(5));
  CHECK(tier_points(three_tiers, 1.5) == doctest::Approx(5));
  CHECK(tier_points(three_tiers, 3) == doctest::Approx(20));
  CHECK(tier_points(three_tiers, 3.5) == doctest::Approx(25));
}

TEST_CASE("above the last tier, the last tier's points") {
  CHECK(tier_points(two_tiers, 1.81) == doctest::Approx(20));
  CHECK(tier_points(two_tiers, 100) == doctest::Approx(20));
  CHECK(tier_points(three_tiers, 1e9) == doctest::Approx(30));
}

TEST_CASE("a first tier with points gives them at its threshold and nothing below") {
  const std::vector<EvaluatedTier> tiers = {{0.5, 4}, {0.8, 10}};
  CHECK(tier_points(tiers, 0.49) == 0);
  CHECK(tier_points(tiers, 0.5) == doctest::Approx(4));
  CHECK(tier_points(tiers, 0.65) == doctest::Approx(7));
  CHECK(tier_points(tiers, 0.8) == doctest::Approx(10));
  CHECK(tier_points(tiers, 2) == doctest::Approx(10));
}

TEST_CASE("a single tier is a step") {
  const std::vector<EvaluatedTier> tiers = {{2, 15}};
  CHECK(tier_points(tiers, 1.99) == 0);
  CHECK(tier_points(tiers, 2) == doctest::Approx(15));
  CHECK(tier_points(tiers, 50) == doctest::Approx(15));
}

TEST_CASE("no tiers, no points") { CHECK(tier_points({}, 3) == 0); }

TEST_CASE("a value that is not a number earns nothing") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(tier_points(two_tiers, nan) == 0);
  CHECK(tier_points(two_tiers, inf) == 0);  // a zero-time candidate: a fooled timing, not full marks
  CHECK(tier_points(two_tiers, -inf) == 0);
  CHECK(tier_points(three_tiers, nan) == 0);
}

TEST_CASE("points never leave [first tier's points, last tier's points] above the first threshold") {
  for (double v = 1.0; v <= 5.0; v += 0.01) {
    const double p = tier_points(three_tiers, v);
    CHECK(p >= 0);
    CHECK(p <= 30);
  }
}
