// Threat: filling the grading machine's disk. matvec_unrolled writes 256 MiB to a file in its working
// directory before computing. The file-size limit stops it. Expected verdict: output_limit for "unrolled".
#include <cstdio>
#include <vector>
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

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  if (std::FILE* f = std::fopen("filler.bin", "wb")) {
    std::vector<char> block(1 << 20, 7);
    for (int i = 0; i < 256; ++i) std::fwrite(block.data(), 1, block.size(), f);
    std::fclose(f);
  }
  matvec_contiguous(a, x, y, m, n);
}
