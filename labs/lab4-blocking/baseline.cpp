// baseline.cpp: the judge's lab 4, linked into the trusted worker. Its one job is to be the oracle: both
// functions are the plain i-k-j loop, with no blocking at all, so their answers are easy to trust (the block
// size changes how a correct blocked multiply is scheduled, never its result). The speedup baseline is not
// here: it is the harness's own ikj variant, the same loop, which the judge runs for the performance items.
// This is deliberately not a model solution; do not tune it.
#include "blocking.h"

namespace {

void naive_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

}  // namespace

void matmul_blocked(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k,
                    std::int64_t /*block*/) {
  naive_ikj(a, b, c, m, n, k);
}

void matmul_register_blocked(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n,
                             std::int64_t k) {
  naive_ikj(a, b, c, m, n, k);
}
