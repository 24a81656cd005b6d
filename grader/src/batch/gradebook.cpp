#include "batch/gradebook.h"

#include <cmath>
#include <cstdio>

#include "core/utf8.h"
#include "report/verdict.h"

namespace grader {

using json = nlohmann::json;

bool went_through(const json& report) {
  const std::string status = report.value("status", "");
  return status == graded_status || status == "passed";  // "passed": a report from a grader before graded_status
}

std::string student_status(const json& report) {
  if (!went_through(report)) return report.value("status", "internal_error");
  for (const auto& test : report.value("tests", json::array())) {
    const std::string verdict = test.value("status", "");
    Verdict v;
    if (!verdict_from_string(verdict, v)) return verdict;  // a name from a newer grader: shown as it is
    if (info(v).student_fault || v == Verdict::internal_error) return verdict;
  }
  return "passed";
}

std::vector<std::string> gradebook_items(const LabSpec& spec) {
  std::vector<std::string> items;
  for (const auto& item : spec.correctness) items.push_back(item.name);
  for (const auto& item : spec.performance) items.push_back(item.name);
  return items;
}

std::string csv_field(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string field = "\"";
  for (char c : text) {
    if (c == '"') field += '"';
    field += c;
  }
  return field + "\"";
}

bool starts_like_formula(std::string_view text) {
  return !text.empty() && std::string_view("=+-@\t\r").find(text.front()) != std::string_view::npos;
}

std::string csv_text_field(std::string_view text) {
  std::string cell = valid_utf8(text);
  if (!starts_like_formula(cell)) return csv_field(cell);
  cell.insert(0, "'");
  std::string field = "\"";
  for (char c : cell) {
    if (c == '"') field += '"';
    field += c;
  }
  return field + "\"";
}

std::string format_points(double points) {
  if (!std::isfinite(points)) return "0";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", points);
  std::string text = buffer;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

std::string gradebook_csv(const LabSpec& spec, const std::vector<json>& reports) {
  const std::vector<std::string> items = gradebook_items(spec);
  std::string csv = "student,total,max,status";
  for (const auto& item : items) csv += "," + csv_text_field(item);
  csv += "\r\n";  // RFC 4180's line ending: spreadsheets and Python's csv module read it alike
  for (const auto& report : reports) {
    csv += csv_text_field(report["batch"].value("student", "")) + "," + format_points(report.value("score", 0.0)) + "," +
           format_points(report.value("max_score", spec.max_score())) + "," + csv_text_field(student_status(report));
    for (const auto& item : items) {
      std::string cell;  // empty: the report has no such test (an internal error before grading began)
      for (const auto& test : report.value("tests", json::array()))
        if (test.value("name", "") == item) cell = format_points(test.value("score", 0.0));
      csv += "," + cell;
    }
    csv += "\r\n";
  }
  return valid_utf8(csv);
}

}  // namespace grader
