// writers.h: the report in each format a user reads (pipeline stage 9).
//   text:       the terminal table a student reads (colour only on a terminal, NO_COLOR respected)
//   json:       the stable schema "grader-report/1", documented in docs/student-guide.md
//   gradescope: the results.json fields Gradescope's autograder reads
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "report/report.h"

namespace grader {

std::string render_text(const Report& report, bool colour);
nlohmann::json to_json(const Report& report);
nlohmann::json to_gradescope(const Report& report);

// A report for a run that failed inside the grader itself: zero points, the reason in words, so a
// results file exists even then (a TA never loses a student's entry).
Report internal_error_report(const std::string& lab, const std::string& submission, const std::string& what);

}  // namespace grader
