// baseline.cpp: the judge's kernels, linked into the trusted worker. Two jobs, neither of them speed:
//   - the oracle: every variant is the plain serial loop, so its answers are easy to trust (it ignores the
//     thread count the harness sets: one thread, always);
//   - the baseline: the "faster than serial code" items time the student's parallel version against these.
// This is deliberately not a model solution: no OpenMP, the course's i-j-k loop order, one running sum.
// Do not tune it, or every speedup in the class moves.
#include "parallel.h"

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p <= i; ++p) sum += l[i * m + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

double dot(const double* x, const double* y, std::int64_t len) {
  double sum = 0.0;
  for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
  return sum;
}

// ---- The judge's serial code: the cap of the scaling items' yardstick ------------------------------------------
// The scaling items compare the student's code on all threads with the same code on one thread. That one-thread
// run is the student's to slow down (spin when omp_get_max_threads() is 1), so its time is capped by these: the
// yardstick is the faster of the two (lab.toml, `baseline.cap`). They are plain serial loops done properly (a
// good loop order, vectorised), the serial code a student should start from: a serial submission, however it
// wastes time on one thread, is no faster on all of them than this, and earns no scaling points. They are
// judge-only variants (harness.cpp reaches them through weak symbols); never the oracle, never the students'.
extern "C" {

void lab3_judge_serial_matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k,
                              std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double* row = c + i * n;
    for (std::int64_t j = 0; j < n; ++j) row[j] = 0.0;
    for (std::int64_t p = 0; p < k; ++p) {
      const double scale = a[i * k + p];
      const double* brow = b + p * n;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) row[j] += scale * brow[j];
    }
  }
}

void lab3_judge_serial_matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double* row = c + i * n;
    for (std::int64_t j = 0; j < n; ++j) row[j] = 0.0;
    for (std::int64_t p = 0; p <= i; ++p) {
      const double scale = l[i * m + p];
      const double* brow = b + p * n;
#pragma omp simd
      for (std::int64_t j = 0; j < n; ++j) row[j] += scale * brow[j];
    }
  }
}

double lab3_judge_serial_dot(const double* x, const double* y, std::int64_t len) {
  double sum = 0.0;
#pragma omp simd reduction(+ : sum)
  for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
  return sum;
}

}  // extern "C"
