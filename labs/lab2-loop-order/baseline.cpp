// baseline.cpp: the judge's loop orders, linked into the trusted worker. Two jobs, neither of them speed:
//   - the oracle: every function is the plain loop nest of its order, so its answers are easy to trust.
//     Every order adds the k products into C[i][j] in the same sequence (p = 0, 1, ..., k-1), so all six
//     give the same bits; the oracle for "best" is the judge's ikj only because it is the quickest of them.
//   - the baseline: the performance item measures the student's matmul_best against this file's matmul_ijk,
//     the order a student writes first.
// This is deliberately not a model solution; do not tune it, or every speedup in the class moves.
#include "loop_order.h"

void matmul_ijk(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

void matmul_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

void matmul_jik(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t p = 0; p < k; ++p) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

void matmul_jki(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t i = 0; i < m; ++i) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

void matmul_kij(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

void matmul_kji(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t i = 0; i < m; ++i) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

void matmul_best(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  matmul_ikj(a, b, c, m, n, k);
}
