// Threat (issue 34, the known hole): ikj is not written at all: it is a second name of matmul_best
// (__attribute__((alias))), two symbols at one address. No code of ikj exists to read, and nothing calls anything.
// Expected (tests/e2e/e2e_steps.py, tests/unit/test_step_routes.cpp): ikj not_this_step ("one function under two
// names"), 0 points; every other order and best keep theirs. Caught without timing.
#include "loop_order.h"

void matmul_best(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr std::int64_t strip = 256;
  for (std::int64_t j0 = 0; j0 < n; j0 += strip) {
    const std::int64_t j1 = j0 + strip < n ? j0 + strip : n;
    for (std::int64_t i = 0; i < m; ++i) {
      double* __restrict crow = c + i * n;
      for (std::int64_t p = 0; p < k; ++p) {
        const double aip = a[i * k + p];
        const double* __restrict brow = b + p * n;
        for (std::int64_t j = j0; j < j1; ++j) crow[j] += aip * brow[j];
      }
    }
  }
}

void matmul_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k)
    __attribute__((alias("_Z11matmul_bestPKdS0_Pdlll")));

void matmul_kij(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t i = 0; i < m; ++i) {
      const double aip = a[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
    }
}

void matmul_ijk(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = c[i * n + j];
      for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
}

void matmul_jik(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      double sum = c[i * n + j];
      for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
}

void matmul_jki(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t p = 0; p < k; ++p) {
      const double bpj = b[p * n + j];
      for (std::int64_t i = 0; i < m; ++i) c[i * n + j] += a[i * k + p] * bpj;
    }
}

void matmul_kji(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t j = 0; j < n; ++j) {
      const double bpj = b[p * n + j];
      for (std::int64_t i = 0; i < m; ++i) c[i * n + j] += a[i * k + p] * bpj;
    }
}
