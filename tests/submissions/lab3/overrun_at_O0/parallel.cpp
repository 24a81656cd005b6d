// Submission for the e2e check sanitize-address: overrun_at_O0.
// dot reads one element past the end of x, but only in a build without optimisation (`__OPTIMIZE__` unset):
// the stray read exists only in the -O0 build that lab3's race detectors run in. Expected under
// --sanitize=address,undefined: "dot product race detector" crashes with AddressSanitizer's
// heap-buffer-overflow, named at src/parallel.cpp and this function, which shows that an item's own build
// is instrumented too; "dot product", run in the -O2 build, passes. Without a sanitizer the read is harmless
// (the value is thrown away) and every item passes.
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
#pragma omp parallel for reduction(+ : sum)
  for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
#ifndef __OPTIMIZE__
  volatile double past_the_end = x[len];  // the bug: one past the end, thrown away
  (void)past_the_end;
#endif
  return sum;
}
