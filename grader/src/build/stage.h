// stage.h: pipeline stage 2. Copies only the files the lab declares from a submission into a fresh
// work directory; nothing else of the submission is ever read.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "report/verdict.h"
#include "spec/lab_spec.h"

namespace grader {

struct StageResult {
  Verdict verdict = Verdict::passed;  // passed, or missing_file
  std::string details;                // which file and why
  std::vector<std::filesystem::path> sources;  // the staged copies
};

// A declared file that is absent, a symbolic link, not a regular file or larger than the lab allows is
// refused by name. `into` must exist.
StageResult stage_submission(const LabSpec& spec, const std::filesystem::path& submission,
                             const std::filesystem::path& into);

// The name of the entry beside where `name` should be that differs from it only in letter case ("MatVec.cpp" for
// "matvec.cpp"), or nothing. Names are case-sensitive: such a file is still missing, but the student is told what
// was found, and a batch lists them for a person to look at.
std::optional<std::string> same_name_but_case(const std::filesystem::path& submission, const std::string& name);

}  // namespace grader
