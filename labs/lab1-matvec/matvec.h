// matvec.h: the interface of lab 1 (CPU matrix-vector multiply). The harness calls these three functions
// and nothing else; your matvec.cpp defines them. Do not change this file: the grader uses its own copy.
//
// Every function computes y = A x in double precision, where A has m rows and n columns, stored row-major:
//
//   y[i] = A[i][0] * x[0] + A[i][1] * x[1] + ... + A[i][n-1] * x[n-1]      for i = 0 .. m-1
//
// Common rules for all three:
//   - y is output only: it holds garbage (NaN) when you are called, and every y[i] must be overwritten,
//     not added to.
//   - m and n are at least 1 and can be anything from there: 1 x 1, 10 x 10000, 997 x 1013. Nothing is
//     a multiple of 2, 4 or 8 unless the case happens to make it so.
//   - A and x are read only. The arrays do not overlap.
//   - Single-threaded: the harness measures one core.
#pragma once

#include <cstdint>

// The course's first layout: each row is its own allocation, and rows[i] points at row i (n doubles).
// Rows are not adjacent in memory; only the elements within one row are.
void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n);

// One contiguous row-major block: element (i, j) of A is a[i * n + j].
void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n);

// The same contiguous layout, but the inner loop unrolled with several independent partial sums, so that
// the additions no longer form one long dependency chain, plus a remainder loop for the last n % k
// columns when n is not a multiple of the unroll factor k. This is the variant the performance items time.
void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n);
