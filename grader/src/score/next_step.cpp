#include "score/next_step.h"

namespace grader {

std::string next_step(const PerformanceItem& item, const Variables& scope, const Measurement* measurement) {
  for (const Hint& hint : item.hints) {
    if (hint.below) {
      if (measurement == nullptr) continue;
      const bool on_roofline = hint.of == Metric::roofline;
      if (on_roofline && measurement->roofline_fraction <= 0) continue;
      const double figure = on_roofline ? measurement->roofline_fraction : measurement->speedup;
      if (!(figure < hint.below->evaluate(scope))) continue;
    }
    bool holds = true;
    for (const Condition& condition : hint.when) {
      try {
        holds = holds && condition.holds(scope);
      } catch (const ExprEvalError&) {  // a fact that was not read (no objdump, no reference here): not shown
        holds = false;
      }
    }
    if (holds) return hint.text;
  }
  return {};
}

std::string next_step(const PerformanceItem& item, const Variables& scope, const Measurement& measurement) {
  return next_step(item, scope, &measurement);
}

}  // namespace grader
