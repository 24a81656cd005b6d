// stored_report.h: a student's stored report (<id>.json, report/writers.h's to_json) read back into a Report, for
// the writers a batch runs again without grading again: `--gradescope` added to a folder graded before writes
// every earlier student's results.json from their report (docs/ta-guide.md, "What it writes").
//
//   const Report report = report_from_json(*store.result(id));
//   const nlohmann::json results = to_gradescope(report);   // as the grading itself would have written it
//
// What to_json writes is read back; what it leaves out (raw timing samples, the seconds of a compare row's calls)
// stays empty. A field that is missing or of the wrong type keeps the Report's default: a report from an older
// grader reads as far as it goes.
#pragma once

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace grader {

Report report_from_json(const nlohmann::json& stored);

}  // namespace grader
