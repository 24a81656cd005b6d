// audit.h: the regrade log of a batch, <out>/regrades.csv, for appeals. Every time a student who already had a
// report is graded again (--regrade, --force, a SLURM task run again with --force), one row is appended: when, who
// ran it, the student, the old and new score and status, and the TA's --reason. The file is only ever appended to,
// one whole row per write under a lock, so the SLURM tasks and local workers writing it at once never mix rows.
//
//   graded_at,by,student,old_score,new_score,max,old_status,new_status,reason
//   2025-02-03T09:12:44Z,ta1,carol,64.97,65.49,80,passed,passed,"appeal #12: timing on a busy node"
#pragma once

#include <filesystem>
#include <string>

namespace grader {

struct RegradeRecord {
  std::string graded_at;  // UTC, ISO 8601, as the report's batch.graded_at
  std::string student;
  double old_score = 0, new_score = 0, max_score = 0;
  std::string old_status, new_status;  // grades.csv's status words (batch/gradebook.h)
  std::string reason;                  // --reason; "no reason given" when none was
};

std::filesystem::path regrade_log_path(const std::filesystem::path& out);

// Appends `record` to <out>/regrades.csv (writing the header first when the file is new). Throws
// std::runtime_error when it cannot: a regrade that cannot be recorded must not pass silently.
void record_regrade(const std::filesystem::path& out, const RegradeRecord& record);

}  // namespace grader
