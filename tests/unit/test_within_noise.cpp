// test_within_noise.cpp: one timed item from its raw samples to its points and to every report format
// (grader/src/score/score_item.h, report/writers.h): an interval that holds a tier threshold is flagged "within
// noise" and scored by the stated rule; an interval clear of the thresholds is scored by its median, unflagged.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/writers.h"
#include "score/score.h"
#include "score/score_item.h"

using namespace grader;
using json = nlohmann::json;

namespace {

constexpr double lab_target_noise = 0.03;  // lab 1's, as every CPU lab's

// A speedup item with lab1's tiers of old: nothing below 1.3x, 20 points from 1.8x.
PerformanceItem speedup_item() {
  PerformanceItem item;
  item.name = "unrolled speedup";
  item.metric = Metric::speedup;
  item.tiers = {{Expr::constant(1.3), 0, {}}, {Expr::constant(1.8), 20, {}}};
  return item;
}

// A measurement whose rounds' ratios are `ratios` (baseline 1 ms times the ratio, candidate 1 ms).
TestResult timed(const std::vector<double>& ratios) {
  TestResult test;
  test.name = "unrolled speedup";
  test.kind = TestKind::performance;
  test.max_score = 20;
  Measurement m;
  m.candidate.label = "candidate unrolled";
  m.baseline.label = "judge rowptr";
  for (double ratio : ratios) {
    m.baseline.seconds.push_back(1e-3 * ratio);
    m.candidate.seconds.push_back(1e-3);
  }
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  m.candidate.median = 1e-3;
  m.baseline.median = 1e-3 * sorted[sorted.size() / 2];
  m.speedup = m.baseline.median / m.candidate.median;
  test.measurement = m;
  return test;
}

Report one_item_report(const TestResult& test) {
  Report report;
  report.lab = "lab1";
  report.lab_name = "lab1-matvec";
  report.tests = {test};
  report.score = test.score;
  report.max_score = test.max_score;
  return report;
}

}  // namespace

TEST_CASE("an interval across the full-marks threshold: within noise, the upper end's points, in every format") {
  // Rounds between 1.70x and 1.90x, the median 1.79x: just under full marks by the median alone.
  TestResult test = timed({1.70, 1.72, 1.75, 1.77, 1.78, 1.79, 1.80, 1.82, 1.84, 1.88, 1.90});
  score_measurement(speedup_item(), {}, test, lab_target_noise);
  const Measurement& m = *test.measurement;
  CHECK(m.metric_value == doctest::Approx(1.79));
  CHECK(m.metric_low < 1.8);
  CHECK(m.metric_high >= 1.8);
  CHECK(m.within_noise);
  CHECK(test.score == doctest::Approx(20));  // the median alone would give 19.6
  CHECK(test.verdict == Verdict::passed);
  CHECK(test.details.find("within noise") != std::string::npos);
  CHECK(test.details.find(within_noise_rule) != std::string::npos);

  const Report report = one_item_report(test);
  const json j = to_json(report)["tests"][0]["measurement"];
  CHECK(j["within_noise"] == true);
  CHECK(j["noise_rule"] == within_noise_rule);
  CHECK(j["metric_interval"][0].get<double>() == doctest::Approx(m.metric_low));
  CHECK(j["metric_interval"][1].get<double>() == doctest::Approx(m.metric_high));
  const json gradescope = to_gradescope(report)["tests"][0];
  CHECK(gradescope["output"].get<std::string>().find("within noise") != std::string::npos);
  bool tagged = false;
  for (const auto& tag : gradescope["tags"]) tagged = tagged || tag == "within_noise";
  CHECK(tagged);
  CHECK(render_text(report, false).find("within noise") != std::string::npos);
}

TEST_CASE("an interval on the ramp, clear of every threshold: the median's points, no flag") {
  TestResult test = timed({1.50, 1.52, 1.53, 1.54, 1.55, 1.55, 1.56, 1.57, 1.58, 1.60});
  score_measurement(speedup_item(), {}, test, lab_target_noise);
  const Measurement& m = *test.measurement;
  CHECK_FALSE(m.within_noise);
  CHECK(m.metric_low > 1.3);
  CHECK(m.metric_high < 1.8);
  CHECK(test.score == doctest::Approx(tier_points({{1.3, 0}, {1.8, 20}}, m.metric_value)));
  CHECK(test.details.find("within noise") == std::string::npos);
  const Report report = one_item_report(test);
  CHECK(to_json(report)["tests"][0]["measurement"]["within_noise"] == false);
  CHECK(to_json(report)["tests"][0]["measurement"]["noise_rule"] == "");
  CHECK(render_text(report, false).find("within noise") == std::string::npos);
}

TEST_CASE("straddles_tiers sees what score_measurement will: the trigger for measuring again") {
  const TestResult across = timed({1.70, 1.72, 1.75, 1.77, 1.78, 1.79, 1.80, 1.82, 1.84, 1.88, 1.90});
  CHECK(straddles_tiers(speedup_item(), {}, *across.measurement));
  const TestResult clear = timed({2.40, 2.42, 2.45, 2.50, 2.51, 2.55, 2.60});
  CHECK_FALSE(straddles_tiers(speedup_item(), {}, *clear.measurement));
}

TEST_CASE("points_decided with fewer pairs than min_reps: two pairs decide only far from every threshold") {
  // Lab 4's reference over its naive yardstick (x14 and x15 against full marks from x8 here x1.8): decided on two.
  CHECK(points_decided(speedup_item(), {}, *timed({2.60, 2.70}).measurement, /*few_pairs=*/true));
  // Well below the first tier (lab 4's skeleton: x1 against x3): decided on two; x1 against x1.3 is not.
  CHECK(points_decided(speedup_item(), {}, *timed({0.80, 0.85}).measurement, true));
  CHECK_FALSE(points_decided(speedup_item(), {}, *timed({0.95, 1.00}).measurement, true));
  // Clear of 1.8 by its own half width (decided with min_reps behind it), yet within a quarter of it: not on two.
  CHECK(points_decided(speedup_item(), {}, *timed({2.00, 2.05, 2.10, 2.10, 2.15, 2.20}).measurement));
  CHECK_FALSE(points_decided(speedup_item(), {}, *timed({2.05, 2.10}).measurement, true));
  // Two pairs that agree exactly still have a quarter to clear: 2.2 does not clear 1.8 by a quarter.
  CHECK_FALSE(points_decided(speedup_item(), {}, *timed({2.20, 2.20}).measurement, true));
  CHECK(points_decided(speedup_item(), {}, *timed({2.30, 2.30}).measurement, true));
  // Far from the threshold but spread wide: the whole width each side reaches it.
  CHECK_FALSE(points_decided(speedup_item(), {}, *timed({2.40, 3.40}).measurement, true));
}

TEST_CASE("points_decided: the rounds may stop only where no value the interval allows earns other points") {
  // Far above full marks, and far below the first tier: more rounds could not change the points.
  CHECK(points_decided(speedup_item(), {}, *timed({2.40, 2.42, 2.45, 2.50, 2.51, 2.55, 2.60}).measurement));
  CHECK(points_decided(speedup_item(), {}, *timed({0.95, 0.97, 1.00, 1.01, 1.02, 1.04}).measurement));
  // An interval across a threshold is not decided, and neither is one clear of it by less than its own half width
  // (a few lucky rounds give a narrow interval): rounds within [2.0, 2.2] are decided; rounds from 1.81 to 2.25,
  // every one above 1.8x too, are not, for their interval (about 1.85 to 2.15) is too wide for its distance to 1.8.
  CHECK_FALSE(points_decided(speedup_item(), {}, *timed({1.70, 1.75, 1.78, 1.80, 1.84, 1.88, 1.90}).measurement));
  CHECK(points_decided(speedup_item(), {}, *timed({2.00, 2.05, 2.10, 2.10, 2.15, 2.20}).measurement));
  CHECK_FALSE(points_decided(speedup_item(), {}, *timed({1.81, 1.85, 1.95, 2.05, 2.15, 2.25}).measurement));
  // Between two tiers the points follow the metric itself: they are never decided there, however narrow.
  CHECK_FALSE(points_decided(speedup_item(), {}, *timed({1.55, 1.55, 1.55, 1.56, 1.56, 1.56}).measurement));
  // Where every value of the interval scores the same, it is decided: the points stay as a full measurement gives.
  const TestResult above = timed({2.40, 2.42, 2.45, 2.50, 2.51, 2.55, 2.60});
  TestResult scored = above;
  score_measurement(speedup_item(), {}, scored, lab_target_noise);
  CHECK(scored.score == doctest::Approx(20));
  CHECK_FALSE(scored.measurement->within_noise);
}

TEST_CASE("pooling_may_decide: measuring again is worth it only where the pooled interval could leave the threshold") {
  // The median on the threshold: no number of pairs takes an interval around it off 1.8.
  const TestResult on = timed({1.74, 1.76, 1.78, 1.80, 1.80, 1.80, 1.82, 1.84, 1.86});
  REQUIRE(straddles_tiers(speedup_item(), {}, *on.measurement));
  CHECK_FALSE(pooling_may_decide(speedup_item(), {}, *on.measurement, 1));
  CHECK_FALSE(pooling_may_decide(speedup_item(), {}, *on.measurement, 1000));
  // Below it, the interval reaching past it: the growth in pairs at which the reach toward 1.8, shrunk as
  // 1/sqrt(pairs), comes within the median's distance from it is where measuring again may decide.
  const TestResult below = timed({1.62, 1.66, 1.70, 1.72, 1.73, 1.74, 1.78, 1.82, 1.85, 1.88, 1.90});
  REQUIRE(straddles_tiers(speedup_item(), {}, *below.measurement));
  const ConfidenceInterval interval = metric_interval(speedup_item(), *below.measurement);
  const double median = below.measurement->speedup;
  REQUIRE(median < 1.8);
  const double needed = std::pow((interval.high - median) / (1.8 - median), 2);
  CHECK(needed > 1);
  CHECK_FALSE(pooling_may_decide(speedup_item(), {}, *below.measurement, 1));
  CHECK_FALSE(pooling_may_decide(speedup_item(), {}, *below.measurement, 0.95 * needed));
  CHECK(pooling_may_decide(speedup_item(), {}, *below.measurement, 1.05 * needed));
  // An interval already clear of every threshold has nothing left to decide.
  CHECK(pooling_may_decide(speedup_item(), {}, *timed({2.40, 2.42, 2.45, 2.50, 2.51, 2.55, 2.60}).measurement, 1));
}
