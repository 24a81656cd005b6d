// intake.h: turns one roster entry into the folder the pipeline grades. A folder is graded where it is; an
// archive is unpacked, safely (batch/archive.h), into the student's own work folder. In both, the lab's
// student files are looked for at the top level and, failing that, inside one wrapping folder, because
// platforms and students often add one ("alice/lab1/matvec.cpp").
//
// Nothing here compiles or runs student code: the pipeline's stage 1 (build/stage.h) copies only the
// declared files from the folder this returns.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/archive.h"
#include "batch/roster.h"
#include "report/verdict.h"

namespace grader {

struct Intake {
  std::filesystem::path folder;  // the folder to grade; empty when refused
  Verdict verdict = Verdict::passed;
  std::string refusal;           // "archive refused: entry '../x' climbs out of the folder"
  // Declared files absent but present in another letter case: "MatVec.cpp for matvec.cpp" (a person decides).
  std::vector<std::string> case_mismatches;
};

// `work` is the student's own, empty work folder: an archive is unpacked there and nowhere else.
Intake take_in(const Submission& submission, const std::vector<std::string>& student_files,
               const std::filesystem::path& work, const UnpackLimits& limits);

// `folder` itself when it holds any of `student_files`; else its one subfolder when it has exactly one
// (names starting with '.' and macOS's __MACOSX do not count); else `folder` (staging then names what is
// missing).
std::filesystem::path find_student_files(const std::filesystem::path& folder, const std::vector<std::string>& student_files);

// The verdict of a refused archive: `bad_archive` once the verdict table has it, `missing_file` until then.
Verdict refused_archive_verdict();

}  // namespace grader
