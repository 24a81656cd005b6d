// test_pool.cpp: pool_measurements (grader/src/measure/pool.h), how an item measured again because its interval held a
// tier threshold becomes one measurement with the samples of both.
#include <doctest/doctest.h>

#include "measure/pool.h"

using namespace grader;

namespace {

Measurement measured(const std::string& baseline_label, std::vector<double> baseline, std::vector<double> candidate) {
  Measurement m;
  m.candidate.label = "candidate unrolled";
  m.baseline.label = baseline_label;
  m.baseline.seconds = std::move(baseline);
  m.candidate.seconds = std::move(candidate);
  return m;
}

}  // namespace

TEST_CASE("two measurements of one yardstick pool their samples, in order, and derive the figures again") {
  PerformanceItem item;
  Measurement first = measured("judge rowptr", {2.0, 2.0, 2.0}, {1.0, 1.0, 1.0});
  const Measurement again = measured("judge rowptr", {3.0, 3.0, 3.0, 3.0}, {1.0, 1.0, 1.0, 1.0});
  REQUIRE(pool_measurements(item, {}, std::nullopt, first, again));
  CHECK(first.baseline.seconds == std::vector<double>{2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0});
  CHECK(first.candidate.seconds.size() == 7);  // still one candidate sample per baseline sample: still paired
  CHECK(first.baseline.median == doctest::Approx(3.0));
  CHECK(first.candidate.median == doctest::Approx(1.0));
  CHECK(first.speedup == doctest::Approx(3.0));
}

TEST_CASE("a cap labelled with the time it capped is the same yardstick in both") {
  PerformanceItem item;
  Measurement first = measured("judge serial (caps candidate parallel, which took 12.00 ms)", {1.0}, {0.5});
  const Measurement again = measured("judge serial (caps candidate parallel, which took 13.50 ms)", {1.0}, {0.5});
  CHECK(pool_measurements(item, {}, std::nullopt, first, again));
  CHECK(first.baseline.seconds.size() == 2);
}

TEST_CASE("different yardsticks are not pooled, and nothing changes") {
  PerformanceItem item;
  Measurement first = measured("judge serial (caps candidate parallel, which took 12.00 ms)", {1.0}, {0.5});
  const Measurement again = measured("candidate parallel", {1.2}, {0.5});
  CHECK_FALSE(pool_measurements(item, {}, std::nullopt, first, again));
  CHECK(first.baseline.seconds == std::vector<double>{1.0});
  CHECK(first.candidate.seconds == std::vector<double>{0.5});
}
