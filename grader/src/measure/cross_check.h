// cross_check.h: the times a candidate reports come from a timer it shares its process with. The grader times
// two runs of different lengths with its own clock; their difference (fixed costs cancelled, the harness's own
// per-call cost measured on the judge) must agree with what the candidate reported.
#pragma once

#include <string>

#include "measure/fresh.h"
#include "run/worker.h"

namespace grader {

// Empty when the candidate's reported median per call (`cand_reported`) agrees with what the grader measured
// from outside, else why not (a SUSPECT verdict's details). `reps`: calls per round. What the harness does
// around each call (fresh inputs, cache flushes) is seen from outside too; it is measured on trusted code, the
// judge running `judge_variant` on inputs of the same shapes, and taken off; since another process can run it
// slower, a disagreement must also exceed that share. A worker that dies here returns
// "": the caller sees the dead worker.
// Whether the candidate's own timed rounds, seen from the grader's clock, already agree with its reported median
// per call: `outside_seconds` spent on `calls` calls (warm-up included) holds the calls and every cost around them
// (fresh inputs, the pipe, the reply), so it is at least what the calls took. Where even that is within twice the
// reported median, the runs of cross_check_times() cannot disagree (they look for a median under half the outside
// time per call), and are left out: the check then reads the very rounds that were scored, at no cost.
bool rounds_agree_with_reports(double outside_seconds, int calls, double cand_reported);

std::string cross_check_times(Worker& cand, const std::string& variant, double cand_reported, Worker& judge,
                              const std::string& judge_variant, int reps, FreshCalls& fresh, double timeout);

}  // namespace grader
