// dashboard.h: the class at a glance as one self-contained page, report.html in a batch's --out, regenerated from
// the students' stored reports like grades.csv: the score histogram, the spread of points per item, the class on one
// roofline (a mark per student per timed kernel, the reference among them), the most common failures, and a link
// to each student's own HTML report (<id>.html beside <id>.json).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "spec/lab_spec.h"

namespace grader {

// `reports`: the stored per-student JSON ("grader-report/1" with its "batch" object); `reference`: the selftest's
// record for this lab and machine (report/reference_points.h), or null. `links_similarity`: the folder holds
// similarity.html (similarity/report.h), which the page then links.
std::string class_dashboard_html(const LabSpec& spec, const std::vector<nlohmann::json>& reports,
                                 const nlohmann::json& reference, bool links_similarity = false);

}  // namespace grader
