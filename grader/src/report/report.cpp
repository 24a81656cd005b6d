#include "report/report.h"

namespace grader {

std::string_view to_string(TestKind kind) { return kind == TestKind::correctness ? "correctness" : "performance"; }

bool Report::all_passed() const {
  if (verdict != Verdict::passed) return false;
  for (const auto& test : tests)
    if (test.verdict != Verdict::passed && test.verdict != Verdict::below_threshold && test.verdict != Verdict::not_run)
      return false;
  return true;
}

}  // namespace grader
