// Broken submission for the e2e tests: defines_timer.
// Defines clock_gettime, the timer the harness reads, so that every timed call would look instant.
// Expected verdict: report status policy_refused, its details naming clock_gettime; total 0.
#include "matvec.h"

// Declared here rather than through <time.h>, whose declaration differs in its exception specification.
struct timespec;
extern "C" int clock_gettime(int clock, struct timespec* now) {
  (void)clock;
  (void)now;
  return 0;
}

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
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}
