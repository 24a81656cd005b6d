// Threat (issue 34, the known hole): kij calls a virtual function of a strategy object. The object is constant-
// initialised (no constructor runs before main), its vtable holds the override, and the override calls the best
// order; kij reaches the object through a volatile pointer, so the compiler cannot see which override runs.
// Expected (tests/e2e/e2e_steps.py, tests/unit/test_step_routes.cpp): kij not_this_step ("holds the address of
// matmul_best in its data" or "branches through a pointer"), 0 points; every other order and best keep theirs.
#include "loop_order.h"

struct Strategy {
  virtual void multiply(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) const = 0;
};

struct Streaming : Strategy {
  void multiply(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) const override {
    matmul_best(a, b, c, m, n, k);
  }
};

namespace {

constexpr Streaming streaming;
const Strategy* volatile strategy = &streaming;

}  // namespace

void matmul_kij(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  strategy->multiply(a, b, c, m, n, k);
}

void matmul_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const double aip = a[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
    }
}

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
