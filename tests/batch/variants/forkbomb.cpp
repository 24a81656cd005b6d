// Synthetic class variant "forkbomb" (tests/batch): the unrolled kernel forks without end. Expected: the link
// policy refuses it (fork is named) before anything runs: policy_refused, no points.
#include <unistd.h>

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
  for (;;) fork();
  matvec_contiguous(a, x, y, m, n);
}
