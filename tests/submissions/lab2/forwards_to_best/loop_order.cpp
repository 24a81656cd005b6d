// Threat (issue 34): the best order stands in for every other. ijk, jik, jki, kij and kji each call a strip-mined
// i-k-j routine through a helper, and matmul_best calls it too: every order adds the k products in the same
// sequence, so the outputs are the same bits, and before [steps] this scored 70/70. The orders' helper is
// matmul_best's own code, reached through a trampoline so that no step calls matmul_best by name.
// Expected (tests/e2e/e2e_steps.py): ijk, jik, jki, kij, kji not_this_step ("... calls matmul_best"), 0 points
// each; ikj (an honest loop) and best keep theirs. Caught without timing, by the structure.
#include "loop_order.h"

namespace {

void add_scaled_row(double* __restrict c_row, const double* __restrict b_row, double s, std::int64_t n) {
  constexpr std::int64_t strip = 8;
  std::int64_t j = 0;
  for (; j + strip <= n; j += strip)
    for (std::int64_t t = 0; t < strip; ++t) c_row[j + t] += s * b_row[j + t];
  for (; j < n; ++j) c_row[j] += s * b_row[j];
}

// Not inlined, so each order really jumps through it.
__attribute__((noinline)) void fastest(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n,
                                       std::int64_t k) {
  matmul_best(a, b, c, m, n, k);
}

}  // namespace

void matmul_best(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) add_scaled_row(c + i * n, b + p * n, a[i * k + p], n);
}

void matmul_ijk(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  fastest(a, b, c, m, n, k);
}

void matmul_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const double aip = a[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
    }
}

void matmul_jik(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  fastest(a, b, c, m, n, k);
}

void matmul_jki(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  fastest(a, b, c, m, n, k);
}

void matmul_kij(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  matmul_best(a, b, c, m, n, k);
}

void matmul_kji(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  fastest(a, b, c, m, n, k);
}
