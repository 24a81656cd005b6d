// mutants.h: a lab's known-wrong submissions, for `grader selftest` (docs/lab-toml.md, "Mutants").
//
// labs/<lab>/mutants/<name>/ holds the lab's student files with one mistake the lab teaches (an edge tile
// off by one, a remainder loop left out), and mutant.toml says which items that mistake must cost:
//
//   mistake = "the last, partial tile of each dimension is skipped"
//   must_fail = ["cache blocked"]
//
// Selftest grades every mutant and fails the lab when a listed item keeps any of its points: a case list
// that lets the mistake through does not test what the lab teaches.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "spec/lab_spec.h"

namespace grader {

struct Mutant {
  std::string name;                  // its folder's name
  std::filesystem::path submission;  // the folder: graded like a student's
  std::string mistake;               // what it gets wrong, in the lesson's words
  std::vector<std::string> must_fail;  // items that must lose every point
};

// The folder of a lab that holds its mutants: staff-only, never released or exported.
inline constexpr const char* kMutantsFolder = "mutants";

// The keys a mutant.toml may hold: the reader refuses any other, and docs/lab-toml.md documents each.
const std::vector<std::string>& known_mutant_keys();

// The lab's mutants, by folder name; none when it has no mutants/ folder. A mutant.toml that is missing, not
// TOML, holds an unknown key or a wrong type, or names an item the lab does not have is a SpecError at its
// file:line:column.
std::vector<Mutant> load_mutants(const LabSpec& spec);

}  // namespace grader
