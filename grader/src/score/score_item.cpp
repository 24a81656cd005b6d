#include "score/score_item.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "measure/ceilings.h"
#include "score/next_step.h"
#include "score/score.h"

namespace grader {

namespace {

std::string fixed(double value, int digits) {
  std::ostringstream text;
  text.precision(digits);
  text << std::fixed << value;
  return text.str();
}

std::vector<EvaluatedTier> evaluated_tiers(const PerformanceItem& item, const Variables& scope) {
  std::vector<EvaluatedTier> tiers;
  for (const auto& tier : item.tiers) tiers.push_back({tier.at.evaluate(scope), tier.points});
  return tiers;
}

}  // namespace

ConfidenceInterval metric_interval(const PerformanceItem& item, const Measurement& m) {
  if (item.metric == Metric::speedup) return median_ratio_interval(m.baseline.seconds, m.candidate.seconds);
  // The roofline fraction is a constant over the candidate's median time: its interval is the time's, inverted.
  const ConfidenceInterval time = median_interval(m.candidate.seconds);
  if (time.low <= 0 || m.candidate.median <= 0) return {};
  const double constant = m.roofline_fraction * m.candidate.median;
  return {constant / time.high, constant / time.low};
}

bool straddles_tiers(const PerformanceItem& item, const Variables& scope, const Measurement& m) {
  if (item.metric == Metric::roofline && m.roofline_fraction <= 0) return false;
  const ConfidenceInterval interval = metric_interval(item, m);
  return straddles_threshold(evaluated_tiers(item, scope), interval.low, interval.high);
}

bool pooling_may_decide(const PerformanceItem& item, const Variables& scope, const Measurement& m, double growth) {
  const ConfidenceInterval interval = metric_interval(item, m);
  const double median = item.metric == Metric::speedup ? m.speedup : m.roofline_fraction;
  if (!(interval.low <= median && median <= interval.high)) return true;  // no model of it: let the budget decide
  const double shrink = 1 / std::sqrt(std::max(1.0, growth));
  const double low = median - (median - interval.low) * shrink, high = median + (interval.high - median) * shrink;
  return !straddles_threshold(evaluated_tiers(item, scope), low, high);
}

bool points_decided(const PerformanceItem& item, const Variables& scope, const Measurement& m, bool few_pairs) {
  if (item.metric == Metric::roofline && (m.roofline_fraction <= 0 || !item.bound.empty())) return false;
  const ConfidenceInterval interval = metric_interval(item, m);
  if (interval.high <= 0) return false;
  const double margin = (interval.high - interval.low) * (few_pairs ? 1.0 : 0.5);
  double low = interval.low - margin, high = interval.high + margin;
  if (few_pairs) {
    low /= few_pairs_margin;
    high *= few_pairs_margin;
  }
  const std::vector<EvaluatedTier> tiers = evaluated_tiers(item, scope);
  return tier_points(tiers, low) == tier_points(tiers, high) && !straddles_threshold(tiers, low, high);
}

void score_measurement(const PerformanceItem& item, const Variables& scope, TestResult& test, double target_noise) {
  Measurement& m = *test.measurement;
  const std::vector<EvaluatedTier> tiers = evaluated_tiers(item, scope);
  m.threshold_full = tiers.empty() ? 0 : tiers.back().at;
  m.metric = std::string(to_string(item.metric));
  m.tiers.clear();
  for (const auto& tier : tiers) m.tiers.push_back({tier.at, tier.points});
  test.next_step.clear();

  if (item.metric == Metric::roofline && m.roofline_fraction <= 0) {
    test.verdict = Verdict::internal_error;
    test.details = "this item is graded against the machine's roofline and the machine is not calibrated for it "
                   "(run `grader calibrate`)";
    test.score = 0;
    return;
  }
  if (m.possible_fraction > believable_ceiling) {
    test.verdict = Verdict::suspect;
    test.details = "measured at " + fixed(100 * m.roofline_fraction, 0) + "% of this machine's roofline (" +
                   fixed(100 * m.possible_fraction, 0) + "% of the most its threads could do), which no code "
                   "reaches: the timing was fooled (work outside the timed call?)";
    test.score = 0;
    return;
  }
  m.metric_value = item.metric == Metric::speedup ? m.speedup : m.roofline_fraction;
  const ConfidenceInterval interval = metric_interval(item, m);
  m.metric_low = interval.low;
  m.metric_high = interval.high;
  m.within_noise = straddles_threshold(tiers, interval.low, interval.high);
  test.score = m.within_noise ? within_noise_points(tiers, m.metric_value, interval.high, timing_doubt_reach(target_noise))
                              : tier_points(tiers, m.metric_value);
  test.verdict = test.score >= item.max_points() - 1e-9 ? Verdict::passed : Verdict::below_threshold;
  const std::string what = item.metric == Metric::speedup ? "speedup " + fixed(m.speedup, 2) + "x"
                                                          : fixed(100 * m.roofline_fraction, 1) + "% of the roofline";
  const std::string target = item.metric == Metric::speedup ? fixed(m.threshold_full, 2) + "x"
                                                            : fixed(100 * m.threshold_full, 0) + "%";
  test.next_step = next_step(item, scope, m);
  test.details = item.max_points() > 0 ? what + "; full marks from " + target : what + "; for the report only (no points)";
  if (m.within_noise) {
    const auto shown = [&](double value) {
      return item.metric == Metric::speedup ? fixed(value, 2) + "x" : fixed(100 * value, 1) + "%";
    };
    test.details += "; within noise: the 95% interval " + shown(interval.low) + " to " + shown(interval.high) +
                    " holds a tier threshold" +
                    (m.noise_retries > 0 ? " after " + std::to_string(m.noise_retries) + " more measurement(s)" : "") +
                    ", so it is " + within_noise_rule;
  }
}

}  // namespace grader
