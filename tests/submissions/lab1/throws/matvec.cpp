// Broken submission for the e2e tests: throws.
// matvec_unrolled throws std::runtime_error("matvec_unrolled is not implemented yet").
// Expected verdict: "unrolled" crash, its details quoting the exception's message; the other items
// pass: 20 of 40 correctness points.
#include "matvec.h"
#include <stdexcept>

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
  (void)m;
  (void)n;
  throw std::runtime_error("matvec_unrolled is not implemented yet");
}
