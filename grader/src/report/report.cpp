#include "report/report.h"

namespace grader {

std::string_view to_string(TestKind kind) { return kind == TestKind::correctness ? "correctness" : "performance"; }

bool worth_showing(const FactRow& row) {
  const bool yours_zero = !row.yours_value || *row.yours_value == 0;
  const bool reference_zero = !row.reference_value || *row.reference_value == 0;
  return !(yours_zero && reference_zero);
}

bool Report::all_passed() const {
  if (verdict != Verdict::passed) return false;
  for (const auto& test : tests)
    if (test.verdict != Verdict::passed && test.verdict != Verdict::below_threshold && test.verdict != Verdict::not_run)
      return false;
  return true;
}

}  // namespace grader
