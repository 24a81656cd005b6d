// blocking.h: the interface of lab 4 (cache blocking and register blocking of matrix multiply). The harness
// calls these two functions and nothing else; your blocking.cpp defines them. Do not change this file: the
// grader uses its own copy.
//
// Both functions compute C += A B in double precision, all three matrices row-major, as in lab 2:
//
//   A is m x k:  element (i, p) is a[i * k + p]
//   B is k x n:  element (p, j) is b[p * n + j]
//   C is m x n:  element (i, j) is c[i * n + j]
//
//   C[i][j] = C[i][j] + A[i][0] * B[0][j] + A[i][1] * B[1][j] + ... + A[i][k-1] * B[k-1][j]
//
// Common rules for both:
//   - C is accumulated into, not overwritten. When you are called, C already holds values (the harness
//     fills it with random numbers), and the right answer is those values plus A B. Do not zero C first.
//   - m, n and k are at least 1 and can be anything from there: 1 x 1 x 1, 37 x 19 x 53, 2048 x 2048 x 2048.
//     They are often not multiples of your block or tile sizes: the last tile in each dimension is smaller.
//   - A and B are read only. No two of the three arrays overlap. Assume no alignment beyond that of a
//     double: rows start wherever the sizes put them. Use unaligned vector loads and stores, or copy into
//     buffers you align yourself.
//   - Single-threaded: the harness measures one core.
//
// Example: m = n = k = 1, a = {2}, b = {3}, c = {1} on entry: c = {7} on return.
#pragma once

#include <cstdint>

// Cache blocking: C is computed tile by tile, with tiles of block x block in every one of the three loops
// (the last tile in each dimension is whatever is left over). `block` is chosen by the caller, from 1 to
// 512: the grader tests 8 to 256 and times one fixed size (see the handout).
void matmul_blocked(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k,
                    std::int64_t block);

// Register blocking on top of cache blocking: a micro-kernel keeps a small tile of C (for example 4 x 8)
// in registers while it runs through k, and edge tiles are handled when m or n is not a multiple of the
// tile. Its block sizes are yours to choose. This is the function the main performance items time.
void matmul_register_blocked(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n,
                             std::int64_t k);
