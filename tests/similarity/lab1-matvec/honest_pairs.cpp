// matvec.cpp: lab 1, an honest solution written for the similarity tests (tests/similarity): two rows per
// pass with named partial sums, no helper shared with the reference.
#include "matvec.h"

static double row_times_x(const double* row, const double* x, std::int64_t n) {
  double even = 0.0, odd = 0.0, third = 0.0, fourth = 0.0;
  const double* end4 = row + (n & ~std::int64_t{3});
  const double* p = row;
  const double* q = x;
  while (p != end4) {
    even += p[0] * q[0];
    odd += p[1] * q[1];
    third += p[2] * q[2];
    fourth += p[3] * q[3];
    p += 4;
    q += 4;
  }
  double result = (even + third) + (odd + fourth);
  while (p != row + n) result += *p++ * *q++;
  return result;
}

static void two_rows(const double* upper, const double* lower, const double* x, std::int64_t n, double& y_upper,
                     double& y_lower) {
  double u0 = 0.0, u1 = 0.0, l0 = 0.0, l1 = 0.0;
  std::int64_t col = 0;
  while (col + 1 < n) {
    u0 += upper[col] * x[col];
    l0 += lower[col] * x[col];
    u1 += upper[col + 1] * x[col + 1];
    l1 += lower[col + 1] * x[col + 1];
    col += 2;
  }
  if (col < n) {
    u0 += upper[col] * x[col];
    l0 += lower[col] * x[col];
  }
  y_upper = u0 + u1;
  y_lower = l0 + l1;
}

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) y[i] = row_times_x(rows[i], x, n);
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) y[i] = row_times_x(a + i * n, x, n);
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 2 <= m; i += 2) two_rows(a + i * n, a + (i + 1) * n, x, n, y[i], y[i + 1]);
  if (i < m) y[i] = row_times_x(a + i * n, x, n);
}
