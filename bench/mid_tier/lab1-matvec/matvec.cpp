// matvec.cpp (mid-tier): a lab 1 submission that earns part of the performance points, for bench/regrade_spread.py.
// Correct everywhere. "unrolled" is partially optimised: the first five eighths of the rows go through a four-row
// kernel with independent partial sums (the reference's idea), the rest through the naive one-chain loop, so its
// time lies between the naive loop's and the reference's. Measured twice on the shared 2-core AMD VM: against the
// naive row-pointer loop it read x1.48 and x1.68 (7.1 and 20 of 20 with the tiers then at x1.3 to x1.8, the second
// by the noise rule; 0 and 12 from today's x1.5), against the judge's tuned matvec 0.60 (0 and 0.9 of 20 with the
// tiers then at 0.6 to 0.8; 6.7 from today's 0.55 to 0.7). Against read_a, the bandwidth item's yardstick before
// the tuned matvec, it read 0.57 to 0.67. The split is the knob on another machine (it was seven eighths before
// the bandwidth item was timed against read_a).
#include "matvec.h"

namespace {

// The rows [0, optimised) get the four-row kernel; the rest the naive loop.
constexpr std::int64_t optimised_share_num = 5, optimised_share_den = 8;

double dot_naive(const double* row, const double* x, std::int64_t n) {
  double sum = 0;
  for (std::int64_t j = 0; j < n; ++j) sum += row[j] * x[j];
  return sum;
}

// Four rows at once, four partial sums per row, then the n % 4 leftover columns.
void dot_4rows(const double* r0, const double* x, std::int64_t n, double* out) {
  const double* r1 = r0 + n;
  const double* r2 = r1 + n;
  const double* r3 = r2 + n;
  double s0[4] = {0, 0, 0, 0}, s1[4] = {0, 0, 0, 0}, s2[4] = {0, 0, 0, 0}, s3[4] = {0, 0, 0, 0};
  std::int64_t j = 0;
  for (; j + 4 <= n; j += 4)
    for (int k = 0; k < 4; ++k) {
      const double xj = x[j + k];
      s0[k] += r0[j + k] * xj;
      s1[k] += r1[j + k] * xj;
      s2[k] += r2[j + k] * xj;
      s3[k] += r3[j + k] * xj;
    }
  double t[4] = {(s0[0] + s0[2]) + (s0[1] + s0[3]), (s1[0] + s1[2]) + (s1[1] + s1[3]),
                 (s2[0] + s2[2]) + (s2[1] + s2[3]), (s3[0] + s3[2]) + (s3[1] + s3[3])};
  for (; j < n; ++j) {
    t[0] += r0[j] * x[j];
    t[1] += r1[j] * x[j];
    t[2] += r2[j] * x[j];
    t[3] += r3[j] * x[j];
  }
  for (int r = 0; r < 4; ++r) out[r] = t[r];
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
  const std::int64_t optimised = m * optimised_share_num / optimised_share_den / 4 * 4;
  for (std::int64_t i = 0; i < optimised; i += 4) dot_4rows(a + i * n, x, n, y + i);
  for (std::int64_t i = optimised; i < m; ++i) y[i] = dot_naive(a + i * n, x, n);
}
