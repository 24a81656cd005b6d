#include "measure/cross_check.h"

#include <algorithm>
#include <chrono>
#include <sstream>

namespace grader {

namespace {

using steady = std::chrono::steady_clock;

double seconds_since(steady::time_point start) { return std::chrono::duration<double>(steady::now() - start).count(); }

std::string milliseconds(double seconds) {
  std::ostringstream text;
  text.precision(3);
  text << std::fixed << seconds * 1e3;
  return text.str();
}

}  // namespace

std::string cross_check_times(Worker& cand, const std::string& variant, double cand_reported, Worker& base,
                              const std::string& base_variant, double base_reported, bool base_is_judge, int reps,
                              FreshCalls& fresh, double timeout) {
  // Two runs of `reps` and `3 * reps` calls, timed from here: their difference is the cost of 2 * reps calls
  // with the command's fixed costs (the pipe, the reply) cancelled out. It still includes what the harness
  // does around each call (poisoning, cache flushes, fresh inputs): the judge, with the same harness, measures
  // that.
  auto outside_per_call = [&](Worker& worker, const std::string& v, double& per_call) {
    TimedCalls ignored;
    // Fresh inputs here too, so these calls cost what the timed ones did; named before the clock starts.
    const std::string short_name = fresh.next(v, reps);
    const std::string long_name = fresh.next(v, 3 * reps);
    auto start = steady::now();
    if (!worker.time(short_name, 0, reps, false, timeout, ignored)) return false;
    const double short_run = seconds_since(start);
    start = steady::now();
    if (!worker.time(long_name, 0, 3 * reps, false, timeout, ignored)) return false;
    per_call = (seconds_since(start) - short_run) / (2.0 * reps);
    return true;
  };
  // One stall of the host (another process, the page cache) can swallow a whole try, so a submission is
  // only suspected when every one of a few tries disagrees.
  constexpr int tries = 3;
  std::string disagreement;
  for (int attempt = 0; attempt < tries; ++attempt) {
    double cand_outside = 0, base_outside = 0;
    if (!outside_per_call(cand, variant, cand_outside)) return "";
    double harness_overhead = 0;
    if (base_is_judge && outside_per_call(base, base_variant, base_outside))
      harness_overhead = std::max(0.0, base_outside - base_reported);
    const double implied = cand_outside - harness_overhead;
    const double discrepancy = (implied - cand_reported) * 2.0 * reps;
    // Half the time seen from outside, and a difference far beyond timer noise (5 ms over the runs).
    if (!(cand_reported * 2 < implied && discrepancy > 5e-3)) return "";
    disagreement = "the submission reported " + milliseconds(cand_reported) + " ms per call, but the grader measured " +
                   milliseconds(implied) + " ms per call from outside, " + std::to_string(tries) +
                   " times over: its timings cannot be trusted";
  }
  return disagreement;
}

}  // namespace grader
