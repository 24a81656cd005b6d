// Submission for the e2e check sanitize-address: undefined_shift.
// matvec_unrolled computes the right answer but shifts a 32-bit int by 40 on the way, which C++ leaves undefined.
// Expected under --sanitize=undefined: every item passes (UBSan reports and carries on), and the sanitizer
// section holds a "src/matvec.cpp:LINE:COL: runtime error: shift exponent" line.
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
  volatile int width = 40;  // volatile: the compiler may not fold the shift away
  const int shifted = static_cast<int>(n) << width;  // the bug: a shift past int's 32 bits
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum + 0.0 * shifted;
  }
}
