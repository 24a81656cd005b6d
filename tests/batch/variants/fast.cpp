// Synthetic class variant "fast" (tests/batch): correct, with eight independent partial sums per row, so
// the unrolled kernel streams A at memory speed. Expected: every correctness item passes; timed, it is
// faster than "slow".
#include "matvec.h"

namespace {

double dot(const double* row, const double* x, std::int64_t n) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) s[k] += row[j + k] * x[j + k];
  double sum = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
  for (; j < n; ++j) sum += row[j] * x[j];
  return sum;
}

}  // namespace

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) y[i] = dot(rows[i], x, n);
}

// The contiguous step as the handout has it (one sum per row): a copy of the unrolled kernel here would be that step
// written with the next one's technique, which the lab's step rules catch (not_this_step).
void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) y[i] = dot(a + i * n, x, n);
}
