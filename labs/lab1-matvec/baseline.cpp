// baseline.cpp: the judge's matvec, linked into the trusted worker. Two jobs, neither of them speed:
//   - the oracle: every variant is the plain double loop, so its answers are easy to trust;
//   - the baseline: its "rowptr" is the loop a student writes first (one running sum per row), and the
//     performance items measure the student's "unrolled" against it.
// This is deliberately not a model solution; do not tune it, or every speedup in the class moves.
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
  // The oracle for "unrolled" is the same loop as "contiguous": only the student's version is unrolled.
  matvec_contiguous(a, x, y, m, n);
}
