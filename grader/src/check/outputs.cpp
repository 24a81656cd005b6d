#include "check/outputs.h"

#include "check/compare.h"

namespace grader {

OutputsCheck check_outputs(const std::vector<Array>& got, const std::vector<Array>& expected, const Tolerance& tolerance) {
  const std::vector<CheckResult> results = compare_outputs(got, expected, tolerance);
  OutputsCheck check;
  check.passed = all_passed(results);
  check.oracle_invalid = any_internal_error(results);
  for (const auto& result : results) {
    if (result.passed) continue;
    if (!check.summary.empty()) check.summary += "; ";
    check.summary += (results.size() > 1 || expected.size() > 1 ? result.name + ": " : "") + result.summary;
  }
  return check;
}

}  // namespace grader
