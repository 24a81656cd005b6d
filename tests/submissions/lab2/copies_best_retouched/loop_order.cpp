// Threat (issue 34): kij is matmul_best's code under another name, retouched so that its compiled code is not the
// same source: a nop in the middle, the strip's bound written the other way round, the row's pointer and A's element
// loaded in the other order. The outputs are the best order's bits, at its speed; kij has no timing band (its
// technique is the best order's). The compiler undoes the reordering; the nop is padding to the reader.
// Expected (tests/e2e/e2e_steps.py, tests/unit/test_step_routes.cpp): kij not_this_step ("same code as matmul_best",
// with or without "but for its registers"), 0 points; every other order and best keep theirs.
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

void matmul_kij(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  constexpr std::int64_t strip = 256;
  for (std::int64_t j0 = 0; j0 < n; j0 += strip) {
    const std::int64_t j1 = n > j0 + strip ? j0 + strip : n;
    for (std::int64_t i = 0; i < m; ++i) {
      double* __restrict crow = c + i * n;
      __asm__ volatile("nop");
      for (std::int64_t p = 0; p < k; ++p) {
        const double* __restrict brow = b + p * n;
        const double aip = a[i * k + p];
        for (std::int64_t j = j0; j < j1; ++j) crow[j] += aip * brow[j];
      }
    }
  }
}

void matmul_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
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
