// step_code.h: what the step rules read of a submission (steps/step_rules.h's SubmissionCode), taken from the
// compiled-code reader (inspect/code_facts.h) and nothing else: the functions of the student's objects with their
// normalised code hashes, calls and taken addresses, and in a CUDA lab the kernels each host function can launch,
// with the facts the rules name (spec/steps_spec.h, known_step_facts()).
#pragma once

#include "inspect/code_facts.h"
#include "steps/step_rules.h"

namespace grader {

SubmissionCode submission_code(const CodeFacts& facts);

}  // namespace grader
