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

// The bound's time as it would have read during the rounds, for the accusation only (`paced`; unset where the
// baseline is the submission's code or the bound itself). The judge's bound and the judge's baseline are timed in
// alternation, call after call, so each pair shares its moment and their ratio holds whatever load comes and goes;
// the baseline's median in the rounds, where it alternated with the candidate's calls, carries that ratio to the
// rounds' moment. A busy spell over both timings of the bound alone (0.45 s of lab 1's read_a, on a 2-vCPU machine
// grading a class) no longer makes honest code look twice as fast as reading its input. Only the judge's code runs:
// a submission cannot slow or speed either side. False: the judge failed (`sides.failure`).
bool bound_paced_by_baseline(TimedSides& sides, Measurement& m, std::optional<double>& paced);

}  // namespace grader
