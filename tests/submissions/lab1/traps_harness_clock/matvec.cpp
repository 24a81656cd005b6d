// Attacking submission for the e2e tests: traps_harness_clock (issue 32, class 1), the quick twin of
// slows_harness_clock. Correct functions, and *weak* definitions of C++ functions the lab kit calls from
// libstdc++'s shared library (std::chrono::steady_clock::now(), std::locale's constructor) that stop the process
// at once. Only a call from the harness can reach them: the submission never calls them itself.
// Expected: the link policy makes every definition outside the lab's interface local, so nothing of the harness
// binds to them: every item passes, 40 of 40 correctness points. (Before the fix every case crashed, SIGILL.)
#include "matvec.h"

#include <chrono>

__attribute__((weak)) std::chrono::steady_clock::time_point std::chrono::steady_clock::now() noexcept {
  __builtin_trap();
}

// Any mangled name can be defined through an assembler label, a member of the standard library included.
__attribute__((weak)) void trapping_locale() __asm__("_ZNSt6localeC1Ev");
void trapping_locale() { __builtin_trap(); }

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  matvec_contiguous(a, x, y, m, n);
}
