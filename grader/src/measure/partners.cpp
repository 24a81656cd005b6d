#include "measure/partners.h"

#include "measure/ceilings.h"

namespace grader {

namespace {

std::string partner_params_text(const std::vector<Param>& params) {
  std::string text;
  for (const auto& p : params) text += p.name + "=" + p.value.text() + ";";
  return text;
}

std::string partner_expr_text(const std::optional<Expr>& expr) { return expr ? expr->text() : std::string(); }

bool partner_plain_judge_yardstick(const BaselineSpec& baseline) {
  return baseline.process == BaselineSpec::Process::judge && baseline.params.empty() && baseline.cap.empty();
}

bool partner_same_tolerance(const std::optional<Tolerance>& a, const std::optional<Tolerance>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->rtol == b->rtol && a->atol == b->atol);
}

}  // namespace

bool shares_candidate_calls(const PerformanceItem& item, const PerformanceItem& partner) {
  const bool same_calls = &item != &partner && item.variant == partner.variant &&
                          partner_params_text(item.params) == partner_params_text(partner.params) &&
                          partner_same_tolerance(item.tolerance, partner.tolerance);
  const bool same_work = partner_expr_text(item.flops) == partner_expr_text(partner.flops) &&
                         partner_expr_text(item.bytes) == partner_expr_text(partner.bytes) &&
                         item.read_only_memory == partner.read_only_memory && item.precision == partner.precision &&
                         item.cpu_threads.text() == partner.cpu_threads.text() && item.bound == partner.bound;
  return same_calls && same_work && partner_plain_judge_yardstick(item.baseline) &&
         partner_plain_judge_yardstick(partner.baseline) && partner.compare.empty();
}

Measurement partner_measurement(const PerformanceItem& partner, const Variables& scope, bool gpu_lab,
                                const std::optional<Calibration>& calibration, const Measurement& shared,
                                const Timing& yardstick, const std::optional<Timing>& bound,
                                const std::optional<CounterSet>& yardstick_counts, const std::string& yardstick_skipped) {
  Measurement m;
  m.candidate = shared.candidate;
  m.baseline = yardstick;
  fill_rates(partner, scope, m.candidate);
  fill_rates(partner, scope, m.baseline);
  derive_speedup(m);
  if (auto ceilings = roofline_ceilings(partner, scope, gpu_lab, calibration)) {
    raise_to_judge_rate(m.baseline, *ceilings);
    if (bound) {
      Timing bound_rates = *bound;
      fill_rates(partner, scope, bound_rates);
      raise_to_judge_rate(bound_rates, *ceilings);
    }
    place_on_roofline(partner, scope, *ceilings, m);
  }
  m.outside_checked = shared.outside_checked;
  m.noise_retries = shared.noise_retries;
  m.spent.round_count = shared.spent.round_count;
  m.spent.checked_rounds = shared.spent.checked_rounds;
  m.spent.stopped_early = shared.spent.stopped_early;
  // The counters: the candidate's side is the item's, the yardstick's its own (counted with the item's,
  // measure/counted_calls.cpp), or named as skipped for its length.
  if (shared.cpu_counters) {
    CpuCounters counters;
    counters.unavailable = shared.cpu_counters->unavailable;
    for (const auto& side : shared.cpu_counters->sides)
      if (side.label == shared.candidate.label) counters.sides.push_back(side);
    const std::string& skipped = shared.cpu_counters->skipped;
    if (const auto at = skipped.find(shared.candidate.label + " takes "); at != std::string::npos)
      counters.skipped = skipped.substr(at, skipped.find("; ", at) - at);
    if (yardstick_counts) {
      if (yardstick_counts->threads > 0) counters.sides.push_back(*yardstick_counts);
      if (!yardstick_skipped.empty()) counters.skipped += (counters.skipped.empty() ? "" : "; ") + yardstick_skipped;
    }
    m.cpu_counters = std::move(counters);
  }
  return m;
}

}  // namespace grader
