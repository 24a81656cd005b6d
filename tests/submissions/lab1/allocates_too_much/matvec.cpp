// Broken submission for the e2e tests: allocates_too_much.
// matvec_unrolled allocates (and touches) 8 GiB of scratch space, twice lab1's 4096 MB memory limit. Under
// the address-space limit the allocation itself fails with std::bad_alloc.
// Expected verdict: "unrolled" memory_limit; the other items pass: 20 of 40 correctness points.
#include "matvec.h"
#include <cstring>
#include <memory>

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
  const std::size_t bytes = std::size_t{8} << 30;
  std::unique_ptr<char[]> scratch(new char[bytes]);
  std::memset(scratch.get(), 1, bytes);
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = scratch[static_cast<std::size_t>(i)] - 1;  // 0: keeps the buffer alive and touched
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}
