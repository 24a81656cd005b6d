// Threat: cached results. matvec_unrolled remembers its last inputs and output; called again on the same
// inputs (as a benchmark does) it copies the old answer instead of computing. Every answer is right, so only
// the timing gives it away: it "reads" 800 MB far faster than this machine's memory allows.
// Expected verdict: correctness passes; the performance items are SUSPECT (past the roofline), 0 points.
#include <cstring>
#include <vector>
#include "matvec.h"

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
  static const double* last_a = nullptr;
  static const double* last_x = nullptr;
  static std::int64_t last_m = 0, last_n = 0;
  static double last_first = 0, last_final = 0;
  static std::vector<double>* last_y = new std::vector<double>();
  const bool same = a == last_a && x == last_x && m == last_m && n == last_n && a[0] == last_first && a[m * n - 1] == last_final;
  if (same) {
    std::memcpy(y, last_y->data(), sizeof(double) * static_cast<std::size_t>(m));
    return;
  }
  matvec_contiguous(a, x, y, m, n);
  last_a = a; last_x = x; last_m = m; last_n = n; last_first = a[0]; last_final = a[m * n - 1];
  last_y->assign(y, y + m);
}
