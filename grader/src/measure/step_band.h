// step_band.h: the timing half of a step's rules (lab.toml [steps], docs/design.md, "Steps"). The candidate's step
// and the judge's own version of the same step are timed in interleaved rounds on the same fresh inputs, through
// the timing protocol of every item (measure_item.h). A step far faster than the judge's version of that step is
// not that step: an ijk loop at i-k-j speed, cache blocking at register-blocking speed. The band's upper edge
// (`max_speedup`) leaves room for a student who writes the step better than the judge within its technique.
#pragma once

#include <string>

#include "report/report.h"
#include "spec/lab_spec.h"

namespace grader {

// The item that times `step` against the judge's version of it: the step's variant, the judge's step as the
// baseline, the step's parameters. It earns nothing and is never shown as an item.
PerformanceItem step_band_item(const StepRule& step);

// The lab's timing, trimmed for a band: the band's edge sits far from the honest figures, so three rounds tell,
// and a band never takes more than a few seconds of the grading.
TimingSpec step_band_timing(const TimingSpec& lab);

// How much faster the step ran, read at the least favourable end: the lower quartile of the ratios of calls timed
// in the same round (the judge's i-th call of a round over the candidate's i-th). Other work that slows a round
// slows both its sides, so a round's ratio keeps its value where crossing the two sides' quartiles (the judge's
// faster quarter against the candidate's slower one) adds both spreads: on lab 4's blocked step under load, a
// register-blocked copy read 2.5x this way against 2.1x crossed (docs/design.md, "Steps"). Still the lower
// quarter, so a few noisy rounds never make an honest step look faster. Crossed quartiles where the counts differ.
double least_favourable_speedup(const Measurement& measured);

// Empty when the step ran within its band (least_favourable_speedup); else what was seen, in a student's words.
std::string outside_band(const StepRule& step, const Measurement& measured, const std::string& sizes);
// "timed against the judge's own ijk (m=96, n=384, k=384): 1.1x its speed, within the band's 4x"
std::string band_note(const StepRule& step, const Measurement& measured, const std::string& sizes);

}  // namespace grader
