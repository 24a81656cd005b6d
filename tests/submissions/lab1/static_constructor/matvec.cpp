// Broken submission for the e2e tests: static_constructor.
// A global std::vector is constructed before main (an .init_array entry): code that runs before the
// harness is in control. Everything else is correct.
// Expected verdict: report status policy_refused, its details naming .init_array; total 0.
#include "matvec.h"
#include <vector>

namespace {
// A scratch buffer "to avoid allocating in the loop": its constructor runs before main.
std::vector<double> scratch(1024, 0.0);
}  // namespace

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
    double sum = scratch[0];
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}
