// Threat: a data race that -O2 hides: the temporary `sum` of matmul is shared (a missing private).
// At -O2 the compiler keeps `sum` in a register inside the k loop, so each thread happens to work on its own
// copy and every ordinary case passes. Expected: the item "matmul race detector" (built with -O0, where every
// access to `sum` goes to memory) fails (wrong_answer); the other race detectors pass.
#include "parallel.h"

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  double sum;  // declared outside the parallel loop and not private: one sum shared by every thread
#pragma omp parallel for
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      sum = 0.0;
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
