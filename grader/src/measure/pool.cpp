#include "measure/pool.h"

namespace grader {

namespace {

// A cap that took the baseline's place is labelled "judge X (caps candidate Y, which took 12.3 ms)"
// (measure_item.cpp): the same yardstick in two measurements, whatever the time in its label.
std::string yardstick(const std::string& label) { return label.substr(0, label.find(" (caps ")); }

}  // namespace

bool pool_measurements(const PerformanceItem& item, const Variables& scope, const std::optional<Ceilings>& ceilings,
                       Measurement& into, const Measurement& more) {
  if (yardstick(into.baseline.label) != yardstick(more.baseline.label) || into.candidate.label != more.candidate.label)
    return false;
  // Appended as whole measurements, so sample i of each side still comes from the same round (measure/interval.h).
  into.candidate.seconds.insert(into.candidate.seconds.end(), more.candidate.seconds.begin(), more.candidate.seconds.end());
  into.baseline.seconds.insert(into.baseline.seconds.end(), more.baseline.seconds.begin(), more.baseline.seconds.end());
  into.outside_checked = into.outside_checked || more.outside_checked;
  fill_rates(item, scope, into.candidate);
  fill_rates(item, scope, into.baseline);
  derive_speedup(into);
  if (ceilings) place_on_roofline(item, scope, *ceilings, into);
  return true;
}

}  // namespace grader
