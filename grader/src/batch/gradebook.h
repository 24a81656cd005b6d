// gradebook.h: grades.csv, one row per student, derived from the students' reports (batch/store.h) and
// never appended to, so it is well formed whatever happened to the runs that produced them.
//
//   student,total,max,status,row pointers,contiguous layout,unrolled,"unrolled speedup ..., 10000 x 10000",...
//   alice,60,80,passed,10,10,20,20,0
//   bob,0,80,build_error,0,0,0,0,0
//
// One column per graded item in lab.toml's order (correctness items, then performance items), each the
// item's points. RFC 4180 quoting; numbers with at most two decimals.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "spec/lab_spec.h"

namespace grader {

// The status column: the report's own status when the submission never ran (build_error, missing_file,
// policy_refused, internal_error, ...); otherwise the first test that failed, by its verdict (wrong_answer,
// crash, time_limit, ...); otherwise "passed" (performance short of full marks is not a failure).
std::string student_status(const nlohmann::json& report);

// The report's own status says it went through every stage (report/verdict.h's graded_status).
bool went_through(const nlohmann::json& report);

// The item columns, in lab.toml's order.
std::vector<std::string> gradebook_items(const LabSpec& spec);

std::string gradebook_csv(const LabSpec& spec, const std::vector<nlohmann::json>& reports);

// One CSV field, quoted when it holds a comma, a quote, a line break or surrounding spaces.
std::string csv_field(std::string_view text);

// A cell of text someone else wrote (a student id is a folder name; an item name is the instructor's): made valid
// UTF-8, and when it starts with '=', '+', '-', '@', a tab or a carriage return, which a spreadsheet would run as a
// formula (=HYPERLINK(...), +cmd, @SUM(1+1)), prefixed with a single quote and quoted, as OWASP's "CSV injection"
// page recommends. Numbers are never passed through here: -3 stays a number.
std::string csv_text_field(std::string_view text);
bool starts_like_formula(std::string_view text);

// 20 -> "20", 13.333 -> "13.33", 0.5 -> "0.5".
std::string format_points(double points);

}  // namespace grader
