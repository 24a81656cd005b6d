// grade_slurm.h: `grader LAB --slurm`, a student's grading run on a node the course's cluster gives them
// (docs/student-guide.md, "A GPU lab without a GPU"). The same course settings and the same job script generator
// as a TA's `grader batch --slurm` (slurm/).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "cli/common.h"
#include "slurm/course_settings.h"

namespace grader {

// What the student asked of the grading; every option but --slurm goes to the node's grader unchanged.
struct SlurmGradeRequest {
  std::filesystem::path submission;  // as the student named it
  std::string format = "text";
  std::optional<std::filesystem::path> output;
  bool quick = false;
  bool hidden = false;
  std::optional<std::string> seed;
  std::string sanitize;  // resolved: "memcheck", "address,undefined", ... or empty
  std::optional<std::string> only;
  bool no_counters = false;  // the node's grading skips the profiled calls
};

// Stages the declared student files, submits one job, shows its progress on stderr, cancels it on Ctrl-C and
// prints the node's report (or writes it to --output). Returns the node grader's exit code; nothing when the
// submission cannot be staged (a missing or oversized file): grading it here stops at the same verdict, with
// no job to wait for. Throws CommandFailure for a job that was refused, cancelled or ended by the cluster.
std::optional<ExitCode> grade_on_slurm(const Environment& env, const LabSpec& spec, const SlurmGradeRequest& request);

// The course's cluster settings; a wrong course.toml is CommandFailure(usage) with its file:line:column.
std::optional<CourseSlurm> course_slurm_or_fail(const Environment& env);

// This grader's own path (/proc/self/exe): the program the nodes run when the course names none.
std::filesystem::path this_executable();

}  // namespace grader
