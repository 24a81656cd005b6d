// html_report.h: a student's report as one self-contained HTML page (`grader lab1 --format html -o report.html`,
// and beside each student's JSON in a batch). Written from the report's JSON ("grader-report/1"), so a batch can
// write it again from the files it keeps: the score and every item as the text report has them, the kernels on
// this machine's roofline with the baseline and the reference, a tier ladder and the next step per timed item, and
// the build log, the program's output and the failing cases folded.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace grader {

// `reference`: load_reference_points()'s record for this lab and machine, or null (no reference mark then).
std::string render_html_report(const nlohmann::json& report, const nlohmann::json& reference);

}  // namespace grader
