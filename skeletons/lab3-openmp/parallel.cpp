// parallel.cpp: your solution to lab 3 (OpenMP). The handout is labs/lab3-openmp/README.md; the rules every
// function must follow are in parallel.h.
//
// As given, all three functions are plain serial loops: correct on any number of threads (they ignore
// them), and earning no performance points. Run `grader lab3 --quick` to check correctness (it runs every
// function on 1, 2, 3, 7 and all threads, and on the race-detector cases), `grader lab3` for the timings.
#include "parallel.h"

// TODO(matmul): parallelise this with OpenMP. Questions to settle first (see "Which variables are private"
// and "collapse" in the handout):
//   - Which loop do the threads share? Two threads may never write the same C[i][j].
//   - Which variables must each thread have its own copy of? A variable declared inside the loop body is
//     private; one declared outside the parallel region is shared unless you say otherwise.
//   - Is there enough parallel work when m is smaller than the number of threads (m = 3, 7 threads)?
// Then make the one-thread code fast as well: the i-j-k order below reads B down a column, one cache line per
// multiply-add. Lab 2's loop orders apply unchanged, and "faster than serial code" is graded too.
void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

// TODO(matmul_lower): the same product with a lower-triangular L: row i sums only p <= i, so the last row is
// m times the work of the first. Parallelise it, then look at how the rows are shared: with the default
// schedule one thread gets the cheap top rows and another the expensive bottom ones. Which `schedule`
// fixes that, and what does it cost? (See "How schedule shares the iterations" in the handout.)
// Never read L above the diagonal: those entries are NaN.
void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p <= i; ++p) sum += l[i * m + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

// TODO(dot): parallelise this sum. Every thread adds into `sum`: as written that is a data race, and the
// race-detector cases will see the updates it loses. Use a reduction (see "Reductions" in the handout).
double dot(const double* x, const double* y, std::int64_t len) {
  double sum = 0.0;
  for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
  return sum;
}
