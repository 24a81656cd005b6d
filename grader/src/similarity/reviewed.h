// reviewed.h: the pairs a TA has looked at, kept in <out>/similarity-reviewed.csv. The TA edits it in a spreadsheet or
// adds a row with `grader similarity ... --mark-reviewed alice,bob --note "same study group, explained"`; the report
// reads it at every run and never rewrites what is there, so a rerun keeps every mark.
//
//   student_a,student_b,note
//   alice,bob,"same study group, explained"
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace grader {

inline constexpr const char* reviewed_file_name = "similarity-reviewed.csv";

// The marks, by the pair's two ids in sorted order; the value is the TA's note (may be empty).
using ReviewedPairs = std::map<std::pair<std::string, std::string>, std::string>;

std::pair<std::string, std::string> pair_key(const std::string& a, const std::string& b);

// The marks in `file`; none when it does not exist. Throws std::runtime_error naming the file and line of a row
// that does not name two students, or a file without the header's columns.
ReviewedPairs read_reviewed(const std::filesystem::path& file);

// Adds (or replaces the note of) the pair's mark, keeping every other row as it was. Written atomically.
void mark_reviewed(const std::filesystem::path& file, const std::string& a, const std::string& b, const std::string& note);

}  // namespace grader
