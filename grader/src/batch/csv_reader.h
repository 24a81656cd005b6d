// csv_reader.h: CSV files other programs wrote (Canvas's gradebook export, a TA's mapping), read as RFC 4180 says:
// quoted fields with commas, doubled quotes and line breaks inside, CRLF or LF line ends, a UTF-8 byte-order mark
// at the start (Canvas writes one) skipped, blank lines skipped.
//
//   parse_csv("Student,ID\r\n\"Doe, Jane\",42\r\n")  ==  {{"Student", "ID"}, {"Doe, Jane", "42"}}
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

struct CsvRow {
  int line = 0;  // where the row starts in the file, from 1
  std::vector<std::string> fields;
};

// Throws std::runtime_error naming `file` and the line of a quote that never closes.
std::vector<CsvRow> parse_csv(std::string_view text, const std::string& file = "CSV");

// What reading exports by their column names needs: a field without its surrounding spaces and tabs, ASCII
// lower case, the index of the column a header row names (-1 when absent; `ignore_case` for exports whose
// header case varies), and a row's trimmed cell at an index ("" when the row is short or the column absent).
std::string trimmed(std::string_view text);
std::string ascii_lower(std::string text);
int column_index(const CsvRow& header, std::string_view name, bool ignore_case = false);
std::string cell(const CsvRow& row, int index);

}  // namespace grader
