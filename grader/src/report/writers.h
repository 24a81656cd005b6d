// writers.h: the report in each format a user reads (pipeline stage 9).
//   text:       the terminal table a student reads (colour only on a terminal, NO_COLOR respected)
//   json:       the stable schema "grader-report/1", documented in docs/student-guide.md
//   gradescope: the results.json fields Gradescope's autograder reads
//   prairielearn: the results.json of PrairieLearn's external grader (score 0..1, gradable, tests with points)
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/report.h"

namespace grader {

std::string render_text(const Report& report, bool colour);
nlohmann::json to_json(const Report& report);
nlohmann::json to_gradescope(const Report& report);
nlohmann::json to_prairielearn(const Report& report);
// "20 / 80", "13.3 / 80": points as every writer shows them.
std::string points_out_of(double score, double max);

// `value` as the text of a file: indented, a final newline, and any string that is not UTF-8 (a compiler's echo of a
// Latin-1 source line, a student's folder name) written with U+FFFD in place of its bad bytes, never an exception.
// Every JSON file the grader writes goes through here.
std::string json_text(const nlohmann::json& value, int indent = 2);

// A report for a run that failed inside the grader itself: zero points, the reason in words, so a
// results file exists even then (a TA never loses a student's entry).
Report internal_error_report(const std::string& lab, const std::string& submission, const std::string& what);

}  // namespace grader
