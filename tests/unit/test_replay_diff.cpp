// test_replay_diff.cpp: what `grader replay` calls a difference (grader/src/bundle/replay_diff.h): correctness must be
// identical case by case; a timing differs only when the two 95% intervals of its metric do not meet.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "bundle/replay_diff.h"

using grader::compare_reports;
using grader::intervals_overlap;
using grader::ReplayDiff;
using json = nlohmann::json;

namespace {

json report(const std::string& case_status, double metric, double low, double high, double score) {
  json one_case = {{"name", "n=7"}, {"variant", "unrolled"}, {"status", case_status}};
  json correctness = {{"name", "square"}, {"kind", "correctness"}, {"status", case_status}, {"cases", json::array({one_case})}};
  json measurement = {{"metric_value", metric}, {"metric_interval", json::array({low, high})}};
  json performance = {{"name", "speedup"},
                      {"kind", "performance"},
                      {"status", score >= 20 ? "passed" : "below_threshold"},
                      {"score", score},
                      {"max_score", 20},
                      {"measurement", measurement}};
  return {{"status", "passed"}, {"tests", json::array({correctness, performance})}};
}

}  // namespace

TEST_CASE("intervals meet when they share a point") {
  CHECK(intervals_overlap(1, 2, 2, 3));
  CHECK(intervals_overlap(1, 3, 1.5, 2));
  CHECK_FALSE(intervals_overlap(1, 2, 2.01, 3));
  CHECK_FALSE(intervals_overlap(2.01, 3, 1, 2));
}

TEST_CASE("the same report replayed: no differences") {
  const ReplayDiff diff = compare_reports(report("passed", 1.9, 1.85, 1.95, 20), report("passed", 1.9, 1.85, 1.95, 20));
  CHECK(diff.identical());
  CHECK(diff.same.size() == 2);
}

TEST_CASE("timings whose intervals overlap are the same within noise, even with other points") {
  const ReplayDiff diff = compare_reports(report("passed", 1.78, 1.70, 1.84, 19.2), report("passed", 1.83, 1.77, 1.90, 20));
  CHECK(diff.identical());
}

TEST_CASE("timings whose intervals do not meet differ") {
  const ReplayDiff diff = compare_reports(report("passed", 1.5, 1.45, 1.55, 8), report("passed", 1.9, 1.85, 1.95, 20));
  REQUIRE(diff.differences.size() == 1);
  CHECK(diff.differences[0].find("speedup") != std::string::npos);
  CHECK(diff.differences[0].find("beyond noise") != std::string::npos);
}

TEST_CASE("a case with another verdict differs, named by case and variant") {
  const ReplayDiff diff = compare_reports(report("passed", 1.9, 1.85, 1.95, 20), report("wrong_answer", 1.9, 1.85, 1.95, 20));
  REQUIRE_FALSE(diff.identical());
  bool named = false;
  for (const auto& line : diff.differences) named = named || line.find("n=7 [unrolled]") != std::string::npos;
  CHECK(named);
}

TEST_CASE("an item missing from the replay differs") {
  json now = report("passed", 1.9, 1.85, 1.95, 20);
  now["tests"].erase(1);
  const ReplayDiff diff = compare_reports(report("passed", 1.9, 1.85, 1.95, 20), now);
  REQUIRE(diff.differences.size() == 1);
  CHECK(diff.differences[0].find("'speedup'") != std::string::npos);
}

TEST_CASE("a timed item that became SUSPECT differs whatever its interval") {
  json now = report("passed", 1.9, 1.85, 1.95, 0);
  now["tests"][1]["status"] = "suspect";
  CHECK_FALSE(compare_reports(report("passed", 1.9, 1.85, 1.95, 20), now).identical());
}
