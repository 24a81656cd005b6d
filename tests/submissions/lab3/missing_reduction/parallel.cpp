// Threat: a data race, the classic one: a parallel sum without a reduction clause.
// Expected: the item "dot product race detector" fails (wrong_answer); matmul's and matmul_lower's pass.
// (At -O2 each thread also keeps its own running sum in a register and the last one to store wins, so the
// ordinary dot product cases catch it too.)
#include "parallel.h"

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
#pragma omp parallel for
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
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
#pragma omp parallel for  // no reduction(+ : sum): every thread adds into the one shared sum
  for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
  return sum;
}
