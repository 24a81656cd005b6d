// rounds.h: the heart of one item's measurement (docs/design.md, "Measuring"): the partners' yardsticks, the
// baseline (and its cap) and the candidate timed in interleaved rounds while the other side is quiet, each round's
// last call checked against the judge's outputs for the same inputs, until the timings are steady, the points are
// decided, or the lab's budget is spent; then a watched rest, and the quiet watch's verdict.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/ceilings.h"
#include "measure/timed_sides.h"
#include "report/report.h"

namespace grader {

// What the rounds leave for the stages after them, besides the measurement's own timings.
struct Rounds {
  Timing cap;  // the judge's cap of a candidate baseline (baseline.cap), timed in the same rounds
  // The partners' yardsticks (MeasureContext::partners), in order, and their variants.
  std::vector<Timing> yardsticks;
  std::vector<std::string> yardstick_variants;
  // The oracle baseline's outputs of the last round's checked call, and that call's index: the expected outputs of
  // the last round's check, and of the candidate's rows of `compare`, timed on those very inputs
  // (measure/compare_rows.h).
  std::optional<std::vector<Array>> oracle_outputs;
  std::uint64_t oracle_call = 0;
  int reps_per_round = 1;  // calls per round after the first (about 20 ms of them)
  // The candidate's rounds as the grader's clock saw them, for the outside cross-check (measure/cross_check.h).
  double cand_outside_seconds = 0;
  int cand_outside_calls = 0;
  std::optional<Ceilings> ceilings;  // the item's roofline ceilings, before any judge's rate raised them
};

// Times the rounds into `m` (its sides' labels and seconds, `spent`) and `rounds`. False: `sides.failure` says why
// (a wrong output, a suspect, a crash, the judge's failure).
bool time_rounds(TimedSides& sides, Measurement& m, Rounds& rounds);

}  // namespace grader
