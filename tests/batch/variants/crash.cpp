// Synthetic class variant "crash" (tests/batch): the unrolled kernel writes through a null pointer on a
// 1 x 1 matrix. Expected: "unrolled" crash (SIGSEGV); the other correctness items pass (20 points).
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
  if (m == 1 && n == 1) {
    // Volatile twice: the compiler may neither drop the store nor turn it into a trap instruction.
    volatile double* volatile nowhere = nullptr;
    *nowhere = 1;
  }
  matvec_contiguous(a, x, y, m, n);
}
