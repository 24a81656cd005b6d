// Attacking submission for the e2e tests: forges_setup_error (issue 32, class 2).
// matvec_unrolled writes a forged lab-kit reply on the results pipe (fd 4), an error in the harness's "setup"
// stage, which the grader once read as the lab's own failure: "internal error, not your fault", exit 4, an
// invitation to a regrade. Then it leaves.
// Expected: nothing a candidate process says makes a grading internal: "unrolled" is a crash naming the forged
// stage; the other items pass: 20 of 40 correctness points, exit 1.
#include "matvec.h"

#include <unistd.h>

#include <cstring>

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
  (void)a, (void)x, (void)y, (void)m, (void)n;
  const char* forged =
      "{\"type\":\"error\",\"stage\":\"setup\",\"message\":\"std::bad_alloc while building the inputs\"}\n";
  (void)write(4, forged, std::strlen(forged));
  _exit(0);
}
