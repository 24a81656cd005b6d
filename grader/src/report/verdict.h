// verdict.h: every way a graded test can end, named once. Every output format (text, JSON, Gradescope,
// the batch CSV) takes its words from this table, so a verdict is spelled the same everywhere.
#pragma once

#include <string_view>
#include <vector>

namespace grader {

enum class Verdict {
  passed,
  wrong_answer,     // outputs differ from the judge's beyond tolerance
  build_error,      // the student's code did not compile or link
  policy_refused,   // the student's objects define or call something the lab forbids
  missing_file,     // a declared student file is absent, a link, not a regular file, or too large
  crash,            // killed by a signal, or an exception escaped the student's code
  time_limit,       // wall-clock or CPU-time limit
  memory_limit,
  output_limit,     // stdout or stderr past the cap
  no_completion,    // exited (any code) before reporting every result
  suspect,          // results that cannot be reconciled with what the grader measured outside
  not_this_step,    // the variant is not the step its name says (lab.toml [steps]): none of that step's points
  below_threshold,  // a correct, timed run that earned less than full performance points
  not_run,          // not run on purpose: --quick, a failed prerequisite, no GPU on this machine
  internal_error,   // the grader or the lab's own code failed; never the student's fault; stays last (all_verdicts)
};

struct VerdictInfo {
  Verdict verdict;
  std::string_view name;         // stable identifier in JSON and CSV: "wrong_answer"
  std::string_view label;        // what a person reads: "wrong answer"
  bool student_fault;            // false for passed, not_run and internal_error
};

const VerdictInfo& info(Verdict verdict);
// The table itself, in declaration order: whoever lists every verdict (a test, a document check) reads it here.
const std::vector<VerdictInfo>& all_verdicts();
std::string_view to_string(Verdict verdict);  // info(verdict).name
bool verdict_from_string(std::string_view name, Verdict& into);

// A report's own status (JSON "status", Gradescope's summary line) is the verdict that stopped the submission before
// its items (build_error, missing_file...) or, when it went through every stage, "graded": never "passed", which a
// TA would read as a passing grade when its items may still have failed. Items and cases keep the verdict names.
inline constexpr std::string_view graded_status = "graded";
std::string_view report_status(Verdict verdict);

}  // namespace grader
