// matvec.cpp (mid-tier): a lab 1 submission that earns about half the performance points, for
// bench/regrade_spread.py. Correct everywhere; "unrolled" keeps two partial sums per row where the reference keeps
// eight and works on four rows at once: the dependency chain is halved, not broken, so the loop runs between the
// naive one and the memory-bound reference.
#include "matvec.h"

namespace {

double dot_two_sums(const double* row, const double* x, std::int64_t n) {
  double even = 0, odd = 0;
  std::int64_t j = 0;
  for (; j + 2 <= n; j += 2) {
    even += row[j] * x[j];
    odd += row[j + 1] * x[j + 1];
  }
  if (j < n) even += row[j] * x[j];
  return even + odd;
}

}  // namespace

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) y[i] = dot_two_sums(a + i * n, x, n);
}
