// Synthetic class variant "diskfill" (tests/batch): the unrolled kernel writes zeros to a file in its
// working folder until the writes fail, trying to fill the disk. Expected: the file-size limit stops it long
// before the disk is full ("unrolled" output_limit: wrote past the file-size limit); the other items pass
// (20 points).
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
  std::FILE* file = std::fopen("filler.bin", "wb");
  const std::vector<char> block(1 << 20, 0);
  while (file != nullptr && std::fwrite(block.data(), 1, block.size(), file) == block.size()) {
  }
  if (file != nullptr) std::fclose(file);
  (void)a, (void)x, (void)y, (void)m, (void)n;  // and if it survives, y is never written
}
