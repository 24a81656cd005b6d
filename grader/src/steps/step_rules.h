// step_rules.h: the structural and fact rules of a stepwise lab's steps (lab.toml [steps], docs/design.md, "Steps").
// They read what the submission's objects compiled to (inspect/, turned into a SubmissionCode by
// steps/step_code.h) and say, for each step that breaks one, what was seen:
//   - a step's function reaches (calls, directly or through helpers) another graded function: the best one or
//     another step's. A helper that two steps share is no graded function, so an honest common edge-tile routine
//     is never caught by this;
//   - a step compiles to the same code as another graded function: the same normalised code in everything it
//     reaches (its own body and every helper), or, in a CUDA lab, the same set of kernels launched;
//   - a CUDA step's kernels (every kernel a function it reaches can launch) lack a fact the step requires, or show
//     one it or the lab forbids.
// The timing band (steps/step_band.h) is the other half: what the code does when it runs.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "spec/lab_spec.h"

namespace grader {

// One function of the student's objects, as the rules need it.
struct FunctionCode {
  std::string hash;                    // the normalised code hash (addresses and symbol names left out)
  std::set<std::string> calls;         // functions it calls or jumps to, by name (plain, without parameters)
  std::set<std::string> launches;      // kernels it launches (CUDA), by name
};

// One kernel: the facts it shows (known_step_facts() names).
struct KernelCode {
  std::set<std::string> facts;
};

// What the submission compiled to. Functions and kernels by their plain names ("matmul_ijk", "sequential_kernel").
struct SubmissionCode {
  std::map<std::string, FunctionCode> functions;
  std::map<std::string, KernelCode> kernels;
};

// A step that is not what its name says.
struct StepFinding {
  std::string variant;  // the step's variant: the items that grade it lose their points
  std::string what;     // what was seen, in a student's words
};

// Every finding of the structural and fact rules, at most one per step (the first rule it breaks).
std::vector<StepFinding> check_step_rules(const StepsSpec& steps, const SubmissionCode& code);

}  // namespace grader
