// Submission for the e2e check sanitize-address: heap_overrun.
// matvec_unrolled writes one element past the end of y, the off-by-one a remainder loop invites; without a
// sanitizer the stray store usually lands in the allocator's slack and nothing shows. Expected under
// --sanitize=address,undefined: "unrolled" crashes with AddressSanitizer's heap-buffer-overflow, named at
// src/matvec.cpp and this function; the other two items pass.
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
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
  y[m] = 0.0;  // the bug: one past the end
}
