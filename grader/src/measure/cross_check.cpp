#include "measure/cross_check.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "measure/statistics.h"

namespace grader {

namespace {

using steady = std::chrono::steady_clock;

double cross_check_seconds_since(steady::time_point start) { return std::chrono::duration<double>(steady::now() - start).count(); }

std::string milliseconds(double seconds) {
  std::ostringstream text;
  text.precision(3);
  text << std::fixed << seconds * 1e3;
  return text.str();
}

}  // namespace

bool rounds_agree_with_reports(double outside_seconds, int calls, double cand_reported) {
  return calls > 0 && cand_reported > 0 && outside_seconds / calls <= 2 * cand_reported;
}

std::string cross_check_times(Worker& cand, const std::string& variant, double cand_reported, Worker& judge,
                              const std::string& judge_variant, int reps, FreshCalls& fresh, double timeout) {
  // Two runs of `reps` and `3 * reps` calls, timed from here: their difference is the cost of 2 * reps calls
  // with the command's fixed costs (the pipe, the reply) cancelled out. It still includes what the harness
  // does around each call (poisoning, cache flushes, fresh inputs). `reported` is the worker's own median of
  // the longer run.
  auto outside_per_call = [&](Worker& worker, const std::string& v, double& per_call, double& reported) {
    TimedCalls short_calls, long_calls;
    // Fresh inputs here too, so these calls cost what the timed ones did; named before the clock starts.
    const std::string short_name = fresh.next(v, reps);
    const std::string long_name = fresh.next(v, 3 * reps);
    auto start = steady::now();
    if (!worker.time(short_name, 0, reps, false, timeout, short_calls)) return false;
    const double short_run = cross_check_seconds_since(start);
    start = steady::now();
    if (!worker.time(long_name, 0, 3 * reps, false, timeout, long_calls)) return false;
    per_call = (cross_check_seconds_since(start) - short_run) / (2.0 * reps);
    reported = summarize(long_calls.seconds).median;
    return true;
  };
  // Half the time seen from outside, and a difference far beyond timer noise (5 ms over the runs).
  const auto disagrees = [&](double implied) { return cand_reported * 2 < implied && (implied - cand_reported) * 2.0 * reps > 5e-3; };
  // One stall of the host (another process, the page cache) can swallow a whole try, so a submission is
  // only suspected when every one of a few tries disagrees.
  constexpr int tries = 3;
  std::string disagreement;
  for (int attempt = 0; attempt < tries; ++attempt) {
    double cand_outside = 0, cand_own = 0;
    if (!outside_per_call(cand, variant, cand_outside, cand_own)) return "";
    if (!disagrees(cand_outside)) return "";
    // Only now is the harness's share worth measuring: where a call is short against the fresh inputs it needs
    // (lab3's 20 ms products, each with 16 MB of inputs moved), that share alone can double the outside time.
    double judge_outside = 0, judge_own = 0, harness_overhead = 0;
    if (outside_per_call(judge, judge_variant, judge_outside, judge_own))
      harness_overhead = std::max(0.0, judge_outside - judge_own);
    // The share is measured in the judge's process, and a shared host can run the same harness work markedly
    // slower in one process than in another (lab 3's fresh inputs on a 16-vCPU H100 host: 27.6 ms a call on the
    // judge, about 46 ms in the candidate, three tries running). Where the share dwarfs the call, that difference
    // alone would read as a lie, so the time unaccounted for must also be more than the whole share. A lie bigger
    // than the harness's own work is still caught; a smaller one is left to the roofline's physical ceiling.
    const double implied = cand_outside - harness_overhead;
    if (!disagrees(implied) || implied - cand_reported <= harness_overhead) return "";
    disagreement = "the submission reported " + milliseconds(cand_reported) + " ms per call, but the grader measured " +
                   milliseconds(implied) + " ms per call from outside (the harness's own " + milliseconds(harness_overhead) +
                   " ms per call taken off), " + std::to_string(tries) + " times over: its timings cannot be trusted";
  }
  return disagreement;
}

}  // namespace grader
