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

// Times the judge's bound once more, now, and keeps the faster of that and `bound` (a bound timed in a busy second,
// apart from the interleaved rounds, reads slow and makes honest code look impossibly fast: a code's claim to beat
// it is checked against the judge's best, never its worst). The kept one is remembered for the grading's other items
// (MeasureContext::bounds_timed). False: the judge failed on it (`sides.failure`).
bool time_bound_again(TimedSides& sides, Measurement& m, Timing& bound);

}  // namespace grader
