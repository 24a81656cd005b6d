// matvec.cpp: your solution to lab 1 (CPU matrix-vector multiply). The handout is labs/lab1-matvec/README.md;
// the rules every function must follow are in matvec.h.
//
// As given, all three functions are the plain double loop: correct, and earning no performance points.
// Run `grader lab1 --quick` to check correctness, `grader lab1` for the full report with timings.
#include "matvec.h"

// The course's first version, on the layout where every row is a separate allocation. It is correct; you
// may leave it as it is. (Question for the handout: is the layout really what makes it slow?)
void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

// TODO(contiguous): A is now one block and element (i, j) sits at a[i * n + j]. Index it that way; no row
// pointers. Compare its time with matvec_rowptr in the report and explain the difference (or its absence):
// see "Row pointers or one block" in the handout.
void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}

// TODO(unrolled): this is the function the performance items time, at 10000 x 10000. As written, every
// addition waits for the previous one (one dependency chain through `sum`), so the loop runs at the
// latency of one floating-point add per element instead of at memory speed. Keep several independent
// partial sums (for example 4 or 8, stepping j by that many), add them together at the end of the row,
// and finish the last n % k columns with a remainder loop: n is not always a multiple of k (try 1 x 1 and
// 17 x 11). See "Why the simple loop is slow" and "Unrolling with independent sums" in the handout.
void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}
