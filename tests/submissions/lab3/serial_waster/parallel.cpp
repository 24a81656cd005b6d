// Threat: a self-relative yardstick bought by slowing the slower run (issue 16). The scaling items compare the
// submission on all threads with the same submission on one thread. This submission is plain serial code (a
// vectorised i-k-j loop, no parallel region at all) that, when omp_get_max_threads() is 1, does its work twice:
// the one-thread run takes twice as long, and "scaling" looks like 2x on any machine.
// Expected verdict: correctness passes; the three scaling items earn 0 points (the yardstick is capped by the
// judge's serial code on the same inputs, which is as fast as this code's honest serial run).
#include <omp.h>

#include "parallel.h"

namespace {

void product(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n,
             bool lower) {
  for (std::int64_t i = 0; i < m; ++i) {
    double* row = c + i * n;
    for (std::int64_t j = 0; j < n; ++j) row[j] = 0.0;
    const std::int64_t depth = lower ? i + 1 : k;
    for (std::int64_t p = 0; p < depth; ++p) {
      const double scale = a[i * k + p];
      const double* brow = b + p * n;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) row[j] += scale * brow[j];
    }
  }
}

// Twice the work when the team is one thread: only the scaling items' baseline runs that way.
int repeats() { return omp_get_max_threads() == 1 ? 2 : 1; }

}  // namespace

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  for (int r = repeats(); r > 0; --r) product(a, b, c, m, k, n, false);
}

void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
  for (int r = repeats(); r > 0; --r) product(l, b, c, m, m, n, true);
}

double dot(const double* x, const double* y, std::int64_t len) {
  double sum = 0.0;
  for (int r = repeats(); r > 0; --r) {
    sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
  }
  return sum;
}
