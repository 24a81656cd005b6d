// step_code.h: what the step rules read of a submission (steps/step_rules.h's SubmissionCode), taken from the
// compiled-code reader (inspect/facts.h) and nothing else: the functions of the student's objects with their
// normalised code hashes and calls, and in a CUDA lab the kernels each host function can launch, with their facts.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.h"
#include "spec/lab_spec.h"
#include "steps/step_rules.h"

namespace grader {

struct CpuFacts;
struct GpuFacts;

// The submission's code as the rules read it, from its objects (`objects`: the student's, as built for grading).
// None when the reader could not read them (a tool missing): `why_not` says why, and grading goes on.
std::optional<SubmissionCode> read_submission_code(const Environment& env, const LabSpec& spec,
                                                   const std::vector<std::filesystem::path>& objects,
                                                   std::string& why_not);

// The same from facts already read (tests build them from objdump and PTX text).
SubmissionCode submission_code(const CpuFacts& host);
SubmissionCode submission_code(const GpuFacts& gpu);

}  // namespace grader
