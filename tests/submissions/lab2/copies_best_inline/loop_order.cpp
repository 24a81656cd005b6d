// Threat (issue 34): the best order's loop written again inside each slow order, with no call to any graded
// function and a strip of 4 instead of matmul_best's 8, so that no order compiles to the same code as
// matmul_best. ijk, jik, jki and kji are i-k-j loops under other names; the outputs are the same bits.
// Expected (tests/e2e/e2e_steps.py, timed): ijk, jik, jki, kji not_this_step ("ran ...x faster than the judge's
// own ijk"): the timing band catches what the structure cannot. ikj and kij are honest and keep their points.
#include "loop_order.h"

namespace {

template <int Strip>
inline void add_scaled_row(double* __restrict c_row, const double* __restrict b_row, double s, std::int64_t n) {
  std::int64_t j = 0;
  for (; j + Strip <= n; j += Strip)
    for (std::int64_t t = 0; t < Strip; ++t) c_row[j + t] += s * b_row[j + t];
  for (; j < n; ++j) c_row[j] += s * b_row[j];
}

}  // namespace

#define ROWS_OF_IKJ(strip)                                                                            \
  for (std::int64_t i = 0; i < m; ++i)                                                                \
    for (std::int64_t p = 0; p < k; ++p) add_scaled_row<strip>(c + i * n, b + p * n, a[i * k + p], n)

void matmul_best(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  ROWS_OF_IKJ(8);
}

void matmul_ijk(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  ROWS_OF_IKJ(4);
}

void matmul_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p) {
      const double aip = a[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
    }
}

void matmul_jik(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)  // an i-k-j loop with 2 rows of C at a time: jik in name only
    for (std::int64_t p = 0; p < k; ++p) add_scaled_row<2>(c + i * n, b + p * n, a[i * k + p], n);
}

void matmul_jki(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  ROWS_OF_IKJ(16);
}

void matmul_kij(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t p = 0; p < k; ++p)
    for (std::int64_t i = 0; i < m; ++i) {
      const double aip = a[i * k + p];
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += aip * b[p * n + j];
    }
}

void matmul_kji(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)  // i-k-j again, unrolled differently
    for (std::int64_t p = 0; p < k; ++p) {
      const double s = a[i * k + p];
      double* __restrict c_row = c + i * n;
      for (std::int64_t j = 0; j < n; ++j) c_row[j] += s * b[p * n + j];
    }
}
