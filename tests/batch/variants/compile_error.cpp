// Synthetic class variant "compile_error" (tests/batch): does not compile (an undeclared name).
// Expected: build_error, no points.
#include "matvec.h"

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) y[i] = rows[i][0] * x[0] * n + not_declared_anywhere;
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {}
void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {}
