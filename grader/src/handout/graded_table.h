// graded_table.h: the "What is graded" tables of a lab's handout (labs/<lab>/README.md), written from its lab.toml so
// the two cannot drift apart (`grader handout`; tests/unit/test_handouts.cpp fails when they differ). A handout marks
// where each table goes, and keeps its own prose around them:
//
//   Correctness first. Each item gives its points only if every case passes ...
//   <!-- graded-table correctness -->
//   | item | variant | points | tolerance | visible cases |
//   |---|---|---|---|---|
//   | row pointers | `rowptr` | 10 | atol 1e-10, rtol 1e-12 | public square 8; square 100; 1 x 1 |
//   <!-- /graded-table -->
//   Then performance ...
//   <!-- graded-table performance -->
//   | item | measures | points | tiers |
//   ...
//   Total: 80 points (40 correctness, 40 performance).
//   <!-- /graded-table -->
//
// The tables show what a student may see, exactly what the student release keeps (release/strip.h): visible cases
// by name, items with a visible case, visible benchmarks, and the total of those; nothing hidden, not even a count.
// Tiers and parameters are written with lab.toml's [handout] names ("0.2 (P - 1)"), each named part explained under
// the table.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "spec/lab_spec.h"

namespace grader {

// A handout whose markers cannot be read: what() is "labs/lab1-matvec/README.md:160: ...".
class HandoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The kinds of table, as the opening marker names them: "<!-- graded-table correctness -->".
inline constexpr std::string_view graded_table_kinds[] = {"correctness", "performance"};

// The text between one kind's markers (a blank line, the table, a blank line), for `spec`.
std::string graded_table(const LabSpec& spec, std::string_view kind);

// `handout` with every marked table written again from `spec`; everything outside the markers kept byte for byte.
// Throws HandoutError, naming `file` and the line, for an unknown kind, a kind marked twice, a marker never closed
// or closed twice, and for a handout that marks no table at all (or no performance table, where the lab times items).
std::string with_graded_tables(std::string_view handout, const LabSpec& spec, const std::string& file);

}  // namespace grader
