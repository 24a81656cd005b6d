// Broken submission for the e2e tests: loops_forever.
// matvec_contiguous never returns (an endless loop the compiler may not remove: it touches a volatile).
// Expected verdict: "contiguous layout" time_limit; the other items pass (30 of 40 correctness points), and
// the whole grading still finishes in reasonable time (under 30 s).
#include "matvec.h"

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  (void)a;
  (void)x;
  (void)m;
  (void)n;
  volatile double spin = 0;
  for (;;) spin = spin + 1;  // never leaves
  y[0] = spin;
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}
