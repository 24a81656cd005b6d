#include "batch/csv_reader.h"

#include <algorithm>
#include <cctype>

namespace grader {

std::vector<CsvRow> parse_csv(std::string_view text, const std::string& file) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::vector<CsvRow> rows;
  CsvRow row{1, {}};
  std::string field;
  bool quoted = false, field_started = false;
  int line = 1, quote_line = 0;
  auto end_field = [&] {
    row.fields.push_back(field);
    field.clear();
    field_started = false;
  };
  auto end_row = [&] {
    end_field();
    const bool blank = row.fields.size() == 1 && row.fields[0].empty();
    if (!blank) rows.push_back(row);
    row = CsvRow{line, {}};
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && !field_started) {
      quoted = true;
      field_started = true;
      quote_line = line;
    } else if (c == ',') {
      end_field();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;  // the '\n' ends the row
    } else if (c == '\n') {
      ++line;
      end_row();
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) throw std::runtime_error(file + ":" + std::to_string(quote_line) + ": a quoted field never closes");
  if (field_started || !field.empty() || !row.fields.empty()) end_row();
  return rows;
}

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  return std::string(text.substr(first, text.find_last_not_of(" \t") - first + 1));
}

std::string ascii_lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

int column_index(const CsvRow& header, std::string_view name, bool ignore_case) {
  for (std::size_t i = 0; i < header.fields.size(); ++i) {
    const std::string field = trimmed(header.fields[i]);
    if ((ignore_case ? ascii_lower(field) : field) == name) return static_cast<int>(i);
  }
  return -1;
}

std::string cell(const CsvRow& row, int index) {
  return index >= 0 && static_cast<std::size_t>(index) < row.fields.size() ? trimmed(row.fields[index]) : "";
}

}  // namespace grader
