// Threat: a data race that -O2 hides: matmul's inner loop index `j` is shared (a missing private).
// Expected: the item "matmul race detector" (built with -O0) fails (wrong_answer); the others pass.
#include "parallel.h"

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  std::int64_t j;  // the inner loop's index, shared: only the parallel loop's own index is private
#pragma omp parallel for
  for (std::int64_t i = 0; i < m; ++i) {
    for (j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}
void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
#pragma omp parallel for schedule(dynamic)
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
#pragma omp parallel for reduction(+ : sum)
  for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
  return sum;
}
