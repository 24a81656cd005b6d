// substitution.h: the attack `grader selftest` proves every stepwise lab catches (docs/design.md, "Steps"): the
// reference with its best function standing in for every step. Generated from any lab's reference and lab.toml,
// so a lab from `grader new-lab` is checked like the course's own:
//   - each student file gets, before anything else, one macro per step function that renames the reference's own
//     definition (and its declaration in the lab's header) out of the way;
//   - the file that defines the best function gets, at its end, each step's symbol defined in assembly as a jump to
//     the best function's symbol. A jump forwards every argument as it stands, so no signature is needed: only
//     the symbols, which selftest reads from the reference's compiled objects.
// The harness then calls the best function under every step's name, as a student's one-line forwarders would.
#pragma once

#include <map>
#include <string>

#include "spec/lab_spec.h"

namespace grader {

// The name a step function's own definition is renamed to in a substitution.
std::string replaced_name(const std::string& function);

// `files`: the reference's student files by name; `symbols`: every step function's and the best function's symbol
// as the linker sees it ("_Z10matmul_ijkPKdS0_Pdlll"); `best_file`: the file that defines the best function.
// Returns the substituted files. Throws std::invalid_argument when a symbol is missing or not a plain linker name.
std::map<std::string, std::string> substituted_sources(const StepsSpec& steps, const std::map<std::string, std::string>& files,
                                                       const std::map<std::string, std::string>& symbols,
                                                       const std::string& best_file);

}  // namespace grader
