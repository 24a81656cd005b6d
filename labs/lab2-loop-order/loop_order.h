// loop_order.h: the interface of lab 2 (the six loop orders of matrix multiply). The harness calls these
// seven functions and nothing else; your loop_order.cpp defines them. Do not change this file: the grader
// uses its own copy.
//
// Every function computes C += A B in double precision, all three matrices row-major:
//
//   A is m x k:  element (i, p) is a[i * k + p]
//   B is k x n:  element (p, j) is b[p * n + j]
//   C is m x n:  element (i, j) is c[i * n + j]
//
//   C[i][j] = C[i][j] + A[i][0] * B[0][j] + A[i][1] * B[1][j] + ... + A[i][k-1] * B[k-1][j]
//
// The six functions differ only in the order of the three loops around that one statement: matmul_ikj
// runs i outermost, then p (the k index), then j innermost. Their names spell the loop order outermost
// first, with "k" standing for the summation index.
//
// Common rules for all seven:
//   - C is accumulated into, not overwritten. When you are called, C already holds values (the harness
//     fills it with random numbers), and the right answer is those values plus A B. Do not zero C first.
//   - m, n and k are at least 1 and can be anything from there: 1 x 1 x 1, 37 x 19 x 53, 1024 x 1024 x 1024.
//   - A and B are read only. No two of the three arrays overlap.
//   - Single-threaded: the harness measures one core.
//
// Example: m = n = k = 1, a = {2}, b = {3}, c = {1} on entry: c = {7} on return.
#pragma once

#include <cstdint>

// i outermost, then j, then p: the textbook order (one dot product of a row of A and a column of B per C[i][j]).
void matmul_ijk(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k);
void matmul_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k);
void matmul_jik(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k);
void matmul_jki(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k);
void matmul_kij(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k);
void matmul_kji(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k);

// Your fastest order, for the performance item. Make it call the order your measurements say is fastest
// (or write that order here again, tuned). Same rules as above.
void matmul_best(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k);
