// Attacking submission (issue 32, class 4): a race that only the graded build has.
// Every function shares a temporary between threads (a missing `private`). In an optimised build the compiler
// keeps that temporary in a register, so each thread happens to work on its own copy and every ordinary case
// passes. Where __OPTIMIZE__ is not defined, which was lab 3's -O0 race-detector build and nothing else, the
// same functions are plain serial code: the race detectors, which need the race to reach memory, saw nothing
// and all 13 of their points were kept.
// Expected: the race detectors build at the graded build's optimisation level, with the same predefined macros
// (lab3's build_flags keep the shared temporaries in memory without changing -O2), so the racy code is what they
// run: each race detector fails (wrong_answer) and earns nothing.
#include "parallel.h"

#ifdef __OPTIMIZE__

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  double sum;  // shared by every thread
#pragma omp parallel for
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
  double sum;  // shared by every thread
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      sum = 0.0;
      for (std::int64_t p = 0; p <= i; ++p) sum += l[i * m + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
  }
}

double dot(const double* x, const double* y, std::int64_t len) {
  double sum = 0.0;
  double chunk;  // shared by every thread: the sum of one block of 256 terms
#pragma omp parallel for reduction(+ : sum)
  for (std::int64_t block = 0; block < len; block += 256) {
    chunk = 0.0;
    const std::int64_t end = block + 256 < len ? block + 256 : len;
    for (std::int64_t i = block; i < end; ++i) chunk += x[i] * y[i];
    sum += chunk;
  }
  return sum;
}

#else  // the race detectors' build: serial, and so free of races

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
}

void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int64_t p = 0; p <= i; ++p) sum += l[i * m + p] * b[p * n + j];
      c[i * n + j] = sum;
    }
}

double dot(const double* x, const double* y, std::int64_t len) {
  double sum = 0.0;
  for (std::int64_t i = 0; i < len; ++i) sum += x[i] * y[i];
  return sum;
}

#endif
