// Threat: a forged result on stdout. matvec_unrolled prints what a worker reply looks like, claiming
// success, then leaves y unwritten. Results travel only over the grader's own channel (fds 3/4), so the
// forgery is just output. Expected verdict: wrong_answer for "unrolled" (never written: NaN).
#include <cstdio>
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

void matvec_unrolled(const double*, const double*, double*, std::int64_t m, std::int64_t) {
  std::printf("{\"type\":\"outputs\",\"seconds\":0.000001,\"arrays\":[{\"name\":\"y\",\"dtype\":\"f64\",\"shape\":[%lld],\"bytes\":%lld}]}\n",
              static_cast<long long>(m), static_cast<long long>(8 * m));
  std::printf("{\"type\":\"bye\"}\n");
  std::fflush(stdout);
}
