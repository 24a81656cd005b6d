// cross_check.h: the times a candidate reports come from a timer it shares its process with. The grader times
// two runs of different lengths with its own clock; their difference (fixed costs cancelled, the harness's own
// per-call cost measured on the judge) must agree with what the candidate reported.
#pragma once

#include <string>

#include "measure/fresh.h"
#include "run/worker.h"

namespace grader {

// Empty when the candidate's reported median per call (`cand_reported`) agrees with what the grader measured
// from outside, else why not (a SUSPECT verdict's details). `reps`: calls per round; `base` is the judge
// when `base_is_judge`, and then measures the harness's overhead. A worker that dies here returns "": the
// caller sees the dead worker.
std::string cross_check_times(Worker& cand, const std::string& variant, double cand_reported, Worker& base,
                              const std::string& base_variant, double base_reported, bool base_is_judge, int reps,
                              FreshCalls& fresh, double timeout);

}  // namespace grader
