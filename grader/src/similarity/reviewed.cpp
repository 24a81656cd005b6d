#include "similarity/reviewed.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "batch/csv_reader.h"
#include "batch/gradebook.h"
#include "core/atomic_file.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

std::string read_reviewed_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The rows in file order, as (a, b, note); the header is checked, not returned.
std::vector<std::vector<std::string>> read_rows(const fs::path& file) {
  if (!fs::exists(file)) return {};
  const auto rows = parse_csv(read_reviewed_text(file), file.string());
  if (rows.empty()) return {};
  const int a = column_index(rows[0], "student_a", true), b = column_index(rows[0], "student_b", true),
            note = column_index(rows[0], "note", true);
  if (a < 0 || b < 0)
    throw std::runtime_error(file.string() + ": line 1 must name the columns student_a,student_b,note");
  std::vector<std::vector<std::string>> marks;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    std::vector<std::string> row{cell(rows[i], a), cell(rows[i], b), note >= 0 ? cell(rows[i], note) : ""};
    // A cell written with a leading quote (formula-like text, gradebook.h's csv_text_field) reads back as written.
    for (auto& text : row)
      if (text.size() > 1 && text.front() == '\'' && starts_like_formula(text.substr(1))) text.erase(0, 1);
    if (row[0].empty() || row[1].empty())
      throw std::runtime_error(file.string() + ": line " + std::to_string(rows[i].line) + " does not name two students");
    marks.push_back(std::move(row));
  }
  return marks;
}

}  // namespace

std::pair<std::string, std::string> pair_key(const std::string& a, const std::string& b) {
  return a < b ? std::pair{a, b} : std::pair{b, a};
}

ReviewedPairs read_reviewed(const fs::path& file) {
  ReviewedPairs marks;
  for (const auto& row : read_rows(file)) marks[pair_key(row[0], row[1])] = row[2];
  return marks;
}

void mark_reviewed(const fs::path& file, const std::string& a, const std::string& b, const std::string& note) {
  auto rows = read_rows(file);
  bool replaced = false;
  for (auto& row : rows)
    if (pair_key(row[0], row[1]) == pair_key(a, b)) row[2] = note, replaced = true;
  if (!replaced) rows.push_back({a, b, note});
  std::string csv = "student_a,student_b,note\r\n";
  for (const auto& row : rows) csv += csv_text_field(row[0]) + "," + csv_text_field(row[1]) + "," + csv_text_field(row[2]) + "\r\n";
  write_file_atomically(file, csv);
}

}  // namespace grader
