// Broken submission for the e2e tests: segfaults.
// matvec_unrolled writes through a null pointer; the other two functions are correct.
// Expected verdict: every case of "unrolled" is a crash killed by SIGSEGV; "row pointers" and
// "contiguous layout" still pass (one bad function costs only its items): 20 of 40 correctness points.
#include "matvec.h"

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
  (void)a;
  (void)x;
  (void)y;
  (void)n;
  // Volatile twice: the compiler must neither drop the store nor, knowing the pointer is null, turn it
  // into a trap instruction (SIGILL).
  volatile double* volatile nowhere = nullptr;
  for (std::int64_t i = 0; i < m; ++i) nowhere[i] = 1.0;
}
