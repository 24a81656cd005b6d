// replay_diff.h: what changed between a bundle's report and the report of its replay (both in the JSON schema
// "grader-report/1"). Correctness must be identical, case by case. A timing is the same when the two confidence
// intervals of its metric overlap: two measurements of the same code differ by noise, and only intervals that do
// not meet show a real change.
//
//   ReplayDiff diff = compare_reports(bundle["report"], to_json(replayed));
//   diff.differences   // ["correctness 'small square': case 'n=7' [unrolled] was passed, now wrong_answer"]
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace grader {

struct ReplayDiff {
  std::vector<std::string> differences;  // what a TA must look at: the replay does not confirm the grade
  std::vector<std::string> same;         // one line per item that matched, timings with both intervals
  bool identical() const { return differences.empty(); }
};

// Whether two closed intervals [low, high] meet.
bool intervals_overlap(double low_a, double high_a, double low_b, double high_b);

ReplayDiff compare_reports(const nlohmann::json& then, const nlohmann::json& now);

}  // namespace grader
