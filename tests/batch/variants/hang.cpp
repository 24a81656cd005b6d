// Synthetic class variant "hang" (tests/batch): the contiguous kernel never returns on a 1 x 1 matrix (one
// case, so the grading pays one case's time limit, a few seconds). Expected: "contiguous layout"
// time_limit; the other correctness items pass (30 points).
#include "matvec.h"

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  volatile double spin = 0;
  while (m == 1 && n == 1) spin = spin + 1;  // never leaves on 1 x 1
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
