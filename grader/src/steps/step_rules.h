// step_rules.h: the structural and fact rules of a stepwise lab's steps (lab.toml [steps], docs/design.md, "Steps").
// They read what the submission's objects compiled to (inspect/, turned into a SubmissionCode by
// steps/step_code.h) and say, for each step that breaks one, what was seen:
//   - a step's function is another graded function under a second name (an alias, an ifunc's name on its
//     resolver: two symbols at one address);
//   - a step's function reaches another graded function (the best one or another step's, or a part the compiler
//     split off one): by calls, directly or through helpers, by an address its code takes, or by an address held
//     in data its code refers to (a table of functions, a pointer variable, a vtable, the function's name as a
//     string). A helper that two steps share is no graded function, so an honest common edge-tile routine is never
//     caught by this;
//   - a step's code branches through a pointer (call *%rax) while the objects take the address of a graded
//     function anywhere (code that stores it at run time, data that holds it): such a branch can land on any
//     function whose address is taken, and C++ makes a pointer to a function no other way;
//   - a step compiles to the same code as another graded function: the same normalised code in everything it
//     reaches (its own body and every helper), or the same shape (registers by kind, independent instructions in
//     any order), or, in a CUDA lab, the same set of kernels launched;
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
  std::set<std::string> calls;         // functions it calls, jumps to or takes the address of, by name (plain)
  std::set<std::string> launches;      // kernels it launches (CUDA), by name
  std::string shape;                   // the shape hash (inspect/facts.h): registers by kind, runs sorted
  std::set<std::string> data;          // data it refers to (SubmissionCode::data's keys)
  std::string indirect;                // its first branch through a pointer ("call *%rax"); empty if none
};

// One place of data that holds addresses of code or names of functions.
struct DataCode {
  std::string name;                    // for messages: "table (.data.rel.local)"
  std::set<std::string> points_to;     // functions (by name, as in functions) and data (by key)
};

// One kernel: the facts it shows (known_step_facts() names).
struct KernelCode {
  std::set<std::string> facts;
};

// What the submission compiled to. Functions and kernels by their plain names ("matmul_ijk", "sequential_kernel").
struct SubmissionCode {
  std::map<std::string, FunctionCode> functions;
  std::map<std::string, KernelCode> kernels;
  std::map<std::string, DataCode> data;
  // A second name of a function: an alias or an ifunc's name -> the function (a key of `functions`) at its address.
  std::map<std::string, std::string> other_names;
  // A part the compiler split off a function ("matmul_best.part.0", a cold part, an OpenMP body) -> the function.
  std::map<std::string, std::string> part_of;
  // Functions whose address the objects take, each with where ("in the code of matmul_kij", "in table (.data)").
  std::map<std::string, std::string> address_taken;
};

// A step that is not what its name says.
struct StepFinding {
  std::string variant;  // the step's variant: the items that grade it lose their points
  std::string what;     // what was seen, in a student's words
};

// Every finding of the structural and fact rules, at most one per step (the first rule it breaks).
std::vector<StepFinding> check_step_rules(const StepsSpec& steps, const SubmissionCode& code);

}  // namespace grader
