#include "report/verdict.h"

#include <array>

namespace grader {

namespace {

constexpr std::array verdict_table = {
    VerdictInfo{Verdict::passed, "passed", "passed", false},
    VerdictInfo{Verdict::wrong_answer, "wrong_answer", "wrong answer", true},
    VerdictInfo{Verdict::build_error, "build_error", "build error", true},
    VerdictInfo{Verdict::policy_refused, "policy_refused", "refused by the link policy", true},
    VerdictInfo{Verdict::missing_file, "missing_file", "missing or unusable file", true},
    VerdictInfo{Verdict::crash, "crash", "crash", true},
    VerdictInfo{Verdict::time_limit, "time_limit", "time limit", true},
    VerdictInfo{Verdict::memory_limit, "memory_limit", "memory limit", true},
    VerdictInfo{Verdict::output_limit, "output_limit", "output limit", true},
    VerdictInfo{Verdict::no_completion, "no_completion", "no completion record", true},
    VerdictInfo{Verdict::suspect, "suspect", "SUSPECT", true},
    VerdictInfo{Verdict::not_this_step, "not_this_step", "not the step its name says", true},
    VerdictInfo{Verdict::below_threshold, "below_threshold", "below full marks", false},
    VerdictInfo{Verdict::not_run, "not_run", "not run", false},
    VerdictInfo{Verdict::internal_error, "internal_error", "internal error", false},
};

}  // namespace

const VerdictInfo& info(Verdict verdict) {
  for (const auto& row : verdict_table)
    if (row.verdict == verdict) return row;
  return verdict_table.back();
}

const std::vector<VerdictInfo>& all_verdicts() {
  static const std::vector<VerdictInfo> rows(verdict_table.begin(), verdict_table.end());
  return rows;
}

std::string_view to_string(Verdict verdict) { return info(verdict).name; }

std::string_view report_status(Verdict verdict) { return verdict == Verdict::passed ? graded_status : to_string(verdict); }

bool verdict_from_string(std::string_view name, Verdict& into) {
  for (const auto& row : verdict_table) {
    if (row.name == name) {
      into = row.verdict;
      return true;
    }
  }
  return false;
}

}  // namespace grader
