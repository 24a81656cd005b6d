// timed_sides.h: what one item's measurement (measure/measure_item.h) hands from stage to stage once its inputs are
// set up: the item, its workers (the candidate, the judge, the baseline), the fresh calls handed out so far, the
// quiet watch over the side not being timed, and the first failure. The stages (measure/rounds.h,
// measure/counted_calls.h, measure/compare_rows.h, measure/bound.h) each take it and return false on a failure.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "measure/fresh.h"
#include "measure/measure_item.h"
#include "measure/quiet.h"
#include "report/report.h"
#include "run/worker.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

struct MeasureFailure {
  Verdict verdict = Verdict::internal_error;
  std::string details;
};

struct TimedSides {
  const PerformanceItem& item;
  const MeasureInputs& in;
  MeasureContext& context;
  Variables scope;  // the machine's variables and the item's parameters
  double timeout;   // the lab's wall-clock limit, for every command
  // Every timed call gets inputs of its own (measure/fresh.h): a submission cannot reuse work from an earlier call,
  // and the judge replays the inputs of the calls whose outputs are checked.
  FreshCalls fresh;
  Worker& cand;
  Worker& judge;
  Worker* baseline;  // the judge, or separate_baseline
  std::unique_ptr<Worker> separate_baseline;
  std::string baseline_variant;
  bool baseline_is_candidate_code;
  // While one side is timed, the processes running the submission's code on the other side must be idle.
  QuietWatch quiet;
  std::optional<MeasureFailure> failure;

  // Records the failure; false, for `return sides.fail(...)`.
  bool fail(Verdict verdict, std::string details) {
    failure = MeasureFailure{verdict, std::move(details)};
    return false;
  }
  // One command of `worker`, the submission's processes on the other side watched by `quiet`.
  bool timed(Worker& worker, const std::string& name, int warmup, int reps, bool outputs, TimedCalls& into);
};

using measure_clock = std::chrono::steady_clock;

inline double measure_seconds_since(measure_clock::time_point start) {
  return std::chrono::duration<double>(measure_clock::now() - start).count();
}
std::string measure_fixed(double value, int digits);
// A parameter's value as a label shows it: "10000", "0.5".
std::string measure_shown(double value);

}  // namespace grader
