#include "score/next_step.h"

namespace grader {

std::string next_step(const PerformanceItem& item, const Variables& scope, const Measurement& measurement) {
  for (const Hint& hint : item.hints) {
    const bool on_roofline = hint.of == Metric::roofline;
    if (on_roofline && measurement.roofline_fraction <= 0) continue;
    const double figure = on_roofline ? measurement.roofline_fraction : measurement.speedup;
    if (figure < hint.below.evaluate(scope)) return hint.text;
  }
  return {};
}

}  // namespace grader
