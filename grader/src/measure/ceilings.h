// ceilings.h: what this machine can do at most, for one performance item, and the rates a timing reaches. The
// roofline in the report and the "no code is that fast" check (SUSPECT past 1.5 times what is possible) both
// read it.
#pragma once

#include <optional>
#include <string>

#include "calibrate/calibration.h"
#include "report/report.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

// Faster than this multiple of what is physically possible is not believed: the timing was fooled. Above 1
// because a read-only kernel can outrun a copy-based calibration; results that were cached or computed outside
// the timed call are off by far more.
constexpr double believable_ceiling = 1.5;

struct Ceilings {
  double bytes_per_second = 0, flops_per_second = 0;
  std::string memory_label, compute_label;  // as calibrated: "read-only memory bandwidth (1 thread, 20.6 GB/s)"
  // Where judge code beat a calibrated ceiling in this grading (raise_to_judge_rate), which and how fast: "judge
  // read_a reached 23.1 GB/s in this grading". The calibrated label stays in sight beside it.
  std::string memory_reached, compute_reached;
  // What is physically possible, for the SUSPECT check: the calibrated ceilings, except that several CPU
  // threads may reach as many times one thread's. The all-thread calibration is taken by wall time, so a
  // machine busy while it ran records all-thread ceilings too low, and honest code would look impossible.
  double possible_bytes_per_second = 0, possible_flops_per_second = 0;
};

// This machine's roofline for an item: the GPU's for GPU labs, else the CPU's for as many threads as the item
// uses (read-only or read-write memory as the item says). Nothing when the machine has no calibration for it.
// `scope`: the machine's variables and the item's parameters.
std::optional<Ceilings> roofline_ceilings(const PerformanceItem& item, const Variables& scope, bool gpu_lab,
                                          const std::optional<Calibration>& calibration);

// Median, quartiles, GFLOP/s and GB/s of a timing from its samples and the item's flops and bytes.
void fill_rates(const PerformanceItem& item, const Variables& scope, Timing& timing);

// The speedup and its quartile range from the two timings' filled-in medians and quartiles.
void derive_speedup(Measurement& m);

// Raises a ceiling to the rate that judge code doing the item's work (its judge baseline, or its `bound`) reached
// in this grading, where that is higher than the calibration's: a ceiling the judge beats was measured at another
// moment (a shared VM's bandwidth moves by half within minutes), and no student should read more than 100% of a
// line that the course's own code crossed a second before. It only ever raises a ceiling, so it takes points from
// no one who earned them, and the candidate cannot make judge code faster. `judge` has its rates filled in.
void raise_to_judge_rate(const Timing& judge, Ceilings& ceilings);

// The roofline fraction of the candidate's median, the binding ceiling's label, and the fraction of what is
// physically possible (left 0 without a calibration, or without flops and bytes).
void place_on_roofline(const PerformanceItem& item, const Variables& scope, const Ceilings& ceilings, Measurement& m);

}  // namespace grader
