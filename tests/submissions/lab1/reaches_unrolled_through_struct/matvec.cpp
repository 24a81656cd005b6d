// Threat (issue 34, the known hole): contiguous runs matvec_unrolled through a plan: a volatile pointer to a
// constant array of structs, each holding a function's address and a label. Two hops of data between
// contiguous's code and the graded function; lab 1's steps have no timing band (memory bounds their speed).
// Expected (tests/unit/test_step_routes.cpp): contiguous not_this_step ("holds the address of matvec_unrolled in
// its data"); rowptr and unrolled keep their points.
#include "matvec.h"

namespace {

using Matvec = void (*)(const double*, const double*, double*, std::int64_t, std::int64_t);

struct Plan {
  Matvec run;
  const char* label;
};

double dot(const double* row, const double* x, std::int64_t n) {
  double sum = 0;
  for (std::int64_t j = 0; j < n; ++j) sum += row[j] * x[j];
  return sum;
}

const Plan plans[] = {{matvec_unrolled, "four rows at a time"}};
const Plan* volatile chosen = plans;

}  // namespace

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) y[i] = dot(rows[i], x, n);
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  chosen->run(a, x, y, m, n);
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 4 <= m; i += 4) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      s0 += a[i * n + j] * x[j];
      s1 += a[(i + 1) * n + j] * x[j];
      s2 += a[(i + 2) * n + j] * x[j];
      s3 += a[(i + 3) * n + j] * x[j];
    }
    y[i] = s0;
    y[i + 1] = s1;
    y[i + 2] = s2;
    y[i + 3] = s3;
  }
  for (; i < m; ++i) y[i] = dot(a + i * n, x, n);
}
