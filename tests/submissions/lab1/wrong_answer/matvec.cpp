// Broken submission for the e2e tests: wrong_answer.
// matvec_unrolled keeps four partial sums but drops the remainder loop: the last n % 4 columns are never
// added, so every case whose n is not a multiple of 4 is wrong.
// Expected verdict: "unrolled" wrong_answer, its details naming the worst element and its index
// ("worst at [i]: expected ..., got ..."); the other items pass: 20 of 40 correctness points.
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
    const double* row = a + i * n;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::int64_t j = 0; j + 4 <= n; j += 4) {
      s0 += row[j] * x[j];
      s1 += row[j + 1] * x[j + 1];
      s2 += row[j + 2] * x[j + 2];
      s3 += row[j + 3] * x[j + 3];
    }
    // BUG (on purpose): no loop over the last n % 4 columns.
    y[i] = (s0 + s1) + (s2 + s3);
  }
}
