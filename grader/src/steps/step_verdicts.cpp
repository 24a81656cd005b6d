#include "steps/step_verdicts.h"

#include <algorithm>

namespace grader {

bool item_grades_variant(const LabSpec& spec, const TestResult& test, const std::string& variant) {
  if (test.kind == TestKind::correctness) {
    for (const auto& item : spec.correctness)
      if (item.name == test.name)
        return std::find(item.variants.begin(), item.variants.end(), variant) != item.variants.end();
    return false;
  }
  for (const auto& item : spec.performance)
    if (item.name == test.name) return item.variant == variant;
  return false;
}

void note_step(const LabSpec& spec, const std::string& variant, const std::string& note, Report& report) {
  for (auto& test : report.tests)
    if (item_grades_variant(spec, test, variant) && test.max_score > 0)
      test.details += (test.details.empty() ? "" : "; ") + note;
}

void apply_step_findings(const LabSpec& spec, const std::vector<StepFinding>& findings, Report& report) {
  for (const auto& finding : findings) {
    for (auto& test : report.tests) {
      // An item left out of this run (--only) stays out; every other item of the step loses its points.
      if (!item_grades_variant(spec, test, finding.variant) || (test.verdict == Verdict::not_run && test.max_score == 0))
        continue;
      if (test.verdict == Verdict::not_this_step) {  // a second rule broken: say both
        test.details += "; " + finding.what;
        continue;
      }
      const std::string before = test.details;
      test.verdict = Verdict::not_this_step;
      test.score = 0;
      test.details = "not the " + finding.variant + " step: " + finding.what;
      if (!before.empty()) test.details += " (graded as it stood: " + before + ")";
    }
  }
}

}  // namespace grader
