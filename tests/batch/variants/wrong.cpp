// Synthetic class variant "wrong" (tests/batch): the unrolled kernel forgets the n % 4 leftover columns.
// Expected: "unrolled" wrong_answer; the other correctness items pass (20 points).
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
  for (std::int64_t i = 0; i < m; ++i) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::int64_t j = 0; j + 4 <= n; j += 4) {  // no remainder loop
      s0 += a[i * n + j] * x[j];
      s1 += a[i * n + j + 1] * x[j + 1];
      s2 += a[i * n + j + 2] * x[j + 2];
      s3 += a[i * n + j + 3] * x[j + 3];
    }
    y[i] = (s0 + s1) + (s2 + s3);
  }
}
