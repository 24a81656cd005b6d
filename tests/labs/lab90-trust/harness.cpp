// harness.cpp: lab90-trust's problem for the lab kit (see trust.h for what the lab is for). Builds x (n) from the
// case's seed, calls trust_eval and hands y back. Linked with a test submission (the candidate) and with
// baseline.cpp (the judge). Two things no real lab's harness does, both for the tests:
//
//   - `lie = 1` in a case's or benchmark's parameters makes time_once() report a tenth of the time it measured:
//     a harness built to lie, standing in for a submission that fooled the timer it shares its process with.
//     Only the grader's outside timing (grader/src/measure/cross_check.cpp) can catch that.
//   - `harness_ms = M` makes the harness spend M ms of its own before each call (in poison(), outside the timed
//     region), as a lab whose fresh inputs are large against a short call does: the grader's outside timing must
//     take the harness's share off before it compares (e2e_disturbed.py). `candidate_harness_ms = C` adds C ms
//     more in the candidate's process only, as a shared host did to lab 3's fresh inputs (the same copies, half as
//     fast again in one process as in the other): the grader measures the share on the judge, and such a
//     difference must not read as a lie.
//   - `read_x` is a bound (lab.toml's `bound`): it reads x once. `bound_slow_calls = N` with `bound_spin_ms = M`
//     makes the judge's first N calls of it spin M ms more, as a busy spell over the bound's own timings would
//     (e2e_disturbed.py: an honest item must not be called too fast against a bound that a busy moment slowed).
//   - x and y are never freed. Submissions of this lab leave threads running on them after the call returns;
//     freed under such a thread, they would crash the worker at the next setup and hide the verdict under test.
#include <labkit/labkit.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "trust.h"

// Defined by baseline.cpp: null in the candidate's process, which links the submission instead.
extern "C" __attribute__((weak)) void lab90_judge_marker();

namespace {

// A vector that lives as long as the worker process. A worker sets up a handful of problems, so the leak is a
// few tens of MB at most.
std::vector<double>& kept_vector() { return *new std::vector<double>(); }

// The judge's read_x calls so far in this process, whatever problems it set up: the busy spell is the process's.
std::int64_t judge_bound_calls = 0;

struct Trust : labkit::Problem {
  std::int64_t n = 0;
  bool lie = false;
  double harness_seconds = 0;
  std::vector<double>& x = kept_vector();
  std::vector<double>& y = kept_vector();

  double bound_spin_seconds = 0;
  std::int64_t bound_slow_calls = 0;

  std::vector<std::string> variants() const override { return {"eval", "read_x"}; }

  void setup(labkit::Case& c) override {
    n = c.params.integer("n");
    lie = c.params.integer("lie", 0) != 0;
    harness_seconds = static_cast<double>(c.params.integer("harness_ms", 0)) * 1e-3;
    if (lab90_judge_marker == nullptr) harness_seconds += static_cast<double>(c.params.integer("candidate_harness_ms", 0)) * 1e-3;
    bound_spin_seconds = static_cast<double>(c.params.integer("bound_spin_ms", 0)) * 1e-3;
    bound_slow_calls = c.params.integer("bound_slow_calls", 0);
    if (n < 1) throw labkit::Error("lab90 needs n >= 1, got n=" + std::to_string(n));
    // A judge told to fail: the lab's own failure at grading time, which no check of lab.toml at load can foresee
    // (tests/batch/classmates_e2e.py grades it as an internal error that must leave the student's cell empty).
    if (lab90_judge_marker != nullptr && c.params.integer("judge_fails", 0) != 0)
      throw labkit::Error("lab90's judge was told to fail on this case (judge_fails = 1)");
    c.input("x", x, {n}, -1.0, 1.0);
    y.resize(static_cast<std::size_t>(n));
  }

  static void spin(double seconds) {
    const auto began = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() < seconds) {
    }
  }

  void poison() override {
    labkit::poison(y);
    spin(harness_seconds);
  }

  void run(std::string_view variant) override {
    if (variant == "read_x") {
      double sum = 0;
      for (std::int64_t i = 0; i < n; ++i) sum += x[static_cast<std::size_t>(i)];
      y[0] = sum;
      if (lab90_judge_marker != nullptr && judge_bound_calls++ < bound_slow_calls) spin(bound_spin_seconds);
      return;
    }
    if (variant != "eval") throw labkit::Error("lab90 has no variant '" + std::string(variant) + "' (eval, read_x)");
    trust_eval(x.data(), y.data(), n);
  }

  // The lie is a tenth, not a little: the grader's outside check tolerates noise (it flags only a reported time
  // under half of what it saw, and a difference over 5 ms across its runs), and this must be caught on a busy
  // machine every time.
  double time_once(std::string_view variant) override {
    const double measured = labkit::Problem::time_once(variant);
    return lie ? measured / 10 : measured;
  }

  std::vector<labkit::ArrayRef> inputs() override { return {labkit::ref("x", x, {n})}; }
  std::vector<labkit::ArrayRef> outputs() override { return {labkit::ref("y", y, {n})}; }
};

}  // namespace

LABKIT_PROBLEM(Trust)
