// reference_points.h: where the reference solution sits on this machine, as `grader selftest` measured it. Reports
// draw it on the roofline beside the student's kernels. Figures only (rates and the tiers' figures per item),
// never code: the file lives in the grader's cache, one per machine and lab, and a student's report shows it.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/environment.h"
#include "report/report.h"

namespace grader {

// <cache>/reference/<machine id>-<lab name>.json
std::filesystem::path reference_points_path(const Environment& env, const std::string& lab_name);

// Records the timed items of a reference's report, replacing an earlier record. Throws std::runtime_error when it
// cannot write.
void save_reference_points(const Environment& env, const Report& reference);

// The record for this machine and lab: {"lab", "machine_id", "items": [{"name", "gflops", "gbps", "speedup",
// "roofline_fraction"}]}; null when selftest has not run here (or the file is unreadable: the report just lacks the
// point).
nlohmann::json load_reference_points(const Environment& env, const std::string& lab_name);

}  // namespace grader
