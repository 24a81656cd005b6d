// compare_rows.h: an item's `compare` rows, figures for the report only, timed after the rounds: the judge's
// professional implementations (cuBLAS, CUB, OpenBLAS), or "candidate:<variant>" for the student's other versions
// (lab 2's table of all six loop orders). They earn nothing.
#pragma once

#include "measure/rounds.h"
#include "measure/timed_sides.h"
#include "report/report.h"

namespace grader {

// Times the item's compare rows into `m.compare` (and `m.spent.compare`). A row that fails or computes wrong
// outputs says so in its label. False only where the judge failed (`sides.failure`).
bool time_compare_rows(TimedSides& sides, const Rounds& rounds, Measurement& m);

}  // namespace grader
