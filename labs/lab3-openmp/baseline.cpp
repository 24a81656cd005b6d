// baseline.cpp: the judge's kernels, linked into the trusted worker. Two jobs, neither of them speed:
//   - the oracle: every variant is the plain serial loop, so its answers are easy to trust (it ignores the
//     thread count the harness sets: one thread, always);
//   - the baseline: the "faster than serial code" items time the student's parallel version against these.
// This is deliberately not a model solution: no OpenMP, the course's i-j-k loop order, one running sum.
// Do not tune it, or every speedup in the class moves.
#include "parallel.h"

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p <= i; ++p) sum += l[i * m + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

double dot(const double* x, const double* y, std::int64_t len) {
  double sum = 0.0;
  for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
  return sum;
}
