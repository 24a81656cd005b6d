// bound.h: an item's `bound` (lab 1's read_a, lab 6's transfer bound), what no honest code is much faster than:
// the baseline where that is it, else a judge's row of `compare`, else timed by the judge after the rounds, once
// per grading for each bound variant and parameters (MeasureContext::bounds_timed).
#pragma once

#include <optional>

#include "measure/timed_sides.h"
#include "report/report.h"

namespace grader {

// `bound` holds the bound's timing, or nothing where the item has none; `m.spent.bound` what timing it cost.
// False: the judge failed on it (`sides.failure`).
bool time_bound(TimedSides& sides, Measurement& m, std::optional<Timing>& bound);

}  // namespace grader
