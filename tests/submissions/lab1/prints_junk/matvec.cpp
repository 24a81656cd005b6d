// Broken submission for the e2e tests: prints_junk.
// matvec_unrolled prints a megabyte to stdout (debug output left in), far past lab1's 64 KiB output cap.
// Expected verdict: "unrolled" output_limit; the other items pass: 20 of 40 correctness points.
#include "matvec.h"
#include <cstdio>
#include <string>

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
  const std::string line(1023, '#');
  for (int k = 0; k < 1024; ++k) std::printf("%s\n", line.c_str());  // 1 MiB of debug output
  std::fflush(stdout);
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}
