// Submission for the e2e check sanitize-address: overrun_in_race_detector.
// dot reads one element past the end of x, but only on the dot product race detector's cases (10^7 terms, a
// length no other case of lab3 has). Expected under --sanitize=address,undefined, with --only "dot product race
// detector": that item, which runs in a build of its own (build_flags), crashes with AddressSanitizer's
// heap-buffer-overflow, named at src/parallel.cpp and this function, which shows that an item's own build is
// instrumented too. Without a sanitizer the read is harmless (the value is thrown away) and every item passes.
// (It once keyed on `__OPTIMIZE__`, which only the old -O0 race-detector build lacked; no build can be told apart so
// now: issue 32.)
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
  if (len == 10000000) {
    volatile double past_the_end = x[len];  // the bug: one past the end, thrown away
    (void)past_the_end;
  }
  return sum;
}
