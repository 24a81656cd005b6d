// parallel.h: the interface of lab 3 (OpenMP). The harness calls these three functions and nothing else;
// your parallel.cpp defines them. Do not change this file: the grader uses its own copy.
//
// All matrices are double precision and row-major: element (i, j) of an R x C matrix M is M[i * C + j].
//
// Common rules:
//   - Outputs are output only: they hold NaN when you are called, and every element must be overwritten,
//     not added to.
//   - Sizes are at least 1 and can be anything from there: 1 x 1, 3 x 1000, 997 x 1013. Nothing is a
//     multiple of the thread count, of 4 or of 8 unless the case happens to make it so.
//   - Inputs are read only. No two arrays overlap.
//   - Threads: the harness calls omp_set_num_threads(t) before every call, with t = 1, 2, 3, 7 or all of
//     the machine's hardware threads. Use the team you get: `#pragma omp parallel` (and `parallel for`)
//     without a num_threads clause, and never call omp_set_num_threads yourself. More threads than rows
//     (7 threads, 5 rows) must still give the right answer.
//   - Every call must give the same answer however many threads run it, up to rounding (see the handout:
//     parallel sums add in a different order). A data race is a wrong answer, even when it happens to
//     give the right numbers on your machine today.
#pragma once

#include <cstdint>

// C = A B, where A is m x k, B is k x n and C is m x n:
//
//   C[i][j] = A[i][0] * B[0][j] + A[i][1] * B[1][j] + ... + A[i][k-1] * B[k-1][j]
//
// Parallelise it with OpenMP. Every element of C is independent of the others, so the loops over i and j
// can be split between threads; the loop over k (a sum into one element) cannot, without a reduction.
void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n);

// C = L B, where L is m x m and lower triangular, B is m x n and C is m x n:
//
//   C[i][j] = L[i][0] * B[0][j] + L[i][1] * B[1][j] + ... + L[i][i] * B[i][j]      (only p <= i)
//
// L is stored as a full m x m row-major matrix, but only its lower triangle (p <= i) is part of it: every
// entry above the diagonal holds NaN. Never read them; one NaN read poisons the rows it touches. Row i
// costs i + 1 multiply-adds per column, so the rows at the bottom are far more work than those at the top:
// how the rows are shared between threads (the `schedule` clause) decides how well this scales.
void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n);

// The dot product x[0] * y[0] + x[1] * y[1] + ... + x[len-1] * y[len-1]: one number that every thread
// contributes to. Parallelise it with a reduction; a shared sum that several threads update is a race.
double dot(const double* x, const double* y, std::int64_t len);
