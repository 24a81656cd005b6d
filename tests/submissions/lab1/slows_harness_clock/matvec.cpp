// Attacking submission for the e2e tests: slows_harness_clock (issue 32, class 1).
// The naive loop in all three functions, plus a *weak* definition of libstdc++'s
// std::chrono::steady_clock::now(), the clock the lab kit times each call with. Were that definition left
// global, the linker would bind the harness's calls to it (a definition in an object beats the shared
// library's), and the clock would run 44% slow while matvec_unrolled runs: inside the factor the grader's
// outside timing forgives, so the naive loop would earn performance points (22.8 of 40 before the fix).
// Expected: the link policy makes the definition local (only the lab's interface stays global) and the lab
// kit reads its own clock, so the submission is graded as what it is: full correctness, no performance points.
#include "matvec.h"

#include <time.h>

#include <chrono>

namespace {

long long real_nanoseconds() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000000000LL + now.tv_nsec;
}

long long stolen_nanoseconds = 0;  // taken off the clock: 44% of every call of matvec_unrolled

void naive(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}

}  // namespace

__attribute__((weak)) std::chrono::steady_clock::time_point std::chrono::steady_clock::now() noexcept {
  return time_point(duration(real_nanoseconds() - stolen_nanoseconds));
}

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  naive(a, x, y, m, n);
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const long long began = real_nanoseconds();
  naive(a, x, y, m, n);
  stolen_nanoseconds += (real_nanoseconds() - began) * 44 / 100;
}
