// dump_case.h: `grader lab1 --dump-case NAME`: one correctness case's inputs, and the judge's expected outputs,
// as .npy files, so a student can load a failing case into their own debugger or notebook. With the --seed a
// report printed, the files hold exactly the inputs that case ran on.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/environment.h"
#include "spec/lab_spec.h"

namespace grader {

// The case name matches no case, or several (then "ITEM/CASE" picks one); the message lists the choices.
class UnknownCase : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct DumpedCase {
  std::string item;
  std::string name;
  std::vector<std::filesystem::path> files;  // <array>.npy for inputs, expected.<array>.npy for outputs
};

// `which` is a case's name, or "ITEM/CASE". Hidden cases only with `include_hidden`. Runs the lab's judge
// (built like a grading's) on the case's parameters and seed; a dataset case's files are copied as they are.
DumpedCase dump_case(const Environment& env, const LabSpec& spec, const std::string& which, std::uint64_t run_seed,
                     bool include_hidden, const std::filesystem::path& into);

}  // namespace grader
