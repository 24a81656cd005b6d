// leaderboard.h: the lab's headline figures as Gradescope's leaderboard (the "leaderboard" array of its
// results.json): for each visible performance item that was timed, the student's GFLOP/s and GB/s, where the
// item declares flops and bytes, and its speedup over the baseline. A hidden item is left out: the leaderboard
// is shown to every student, so it would name what they must not see.
//
//   [{"name": "unrolled bandwidth, 10000 x 10000: GB/s", "value": 11.9},
//    {"name": "unrolled bandwidth, 10000 x 10000: speedup", "value": 2.1}, ...]
#pragma once

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace grader {

nlohmann::json gradescope_leaderboard(const Report& report);

}  // namespace grader
