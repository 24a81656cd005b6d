// counted_calls.h: the counters of one item's measurement (measure/cpu_counters.h): one more call of each side on
// fresh inputs, after the rounds, counted by the grader. Its time is not a sample; its counts are the report's,
// never the score's. A CPU lab's grading with GradeOptions::counters (MeasureContext::count_cpu).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "measure/rounds.h"
#include "measure/timed_sides.h"
#include "report/report.h"

namespace grader {

// What the partners' yardsticks' counted calls gave, each for its partner's report (measure/partners.h).
struct PartnerCounts {
  std::vector<std::optional<CounterSet>> counts;
  std::vector<std::string> skipped;  // why a yardstick was not counted, or empty
};

// Counts the candidate's and the baseline's sides into `m.cpu_counters` (and `m.spent.counters`), and the partners'
// yardsticks into `partners`. False: a counted call failed (`sides.failure`).
bool count_calls(TimedSides& sides, const Rounds& rounds, Measurement& m, PartnerCounts& partners);

}  // namespace grader
