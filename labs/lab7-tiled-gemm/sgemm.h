// sgemm.h: the interface of lab 7 (single-precision matrix multiply on the GPU, from a naive kernel to register
// blocking). The harness calls these four functions and nothing else; your sgemm.cu defines them. Do not change
// this file: the grader uses its own copy.
//
// Every function computes C = A B in single precision (float), all three matrices row-major:
//
//   A is M x K: element (i, p) at A[i * K + p]
//   B is K x N: element (p, j) at B[p * N + j]
//   C is M x N: C[i * N + j] = A[i][0] * B[0][j] + A[i][1] * B[1][j] + ... + A[i][K-1] * B[K-1][j]
//
// Common rules for all four:
//   - A, B and C are DEVICE pointers (cudaMalloc'ed by the harness, so each starts on a 256-byte boundary).
//     The harness uploads A and B before the first call and reads C back after the last.
//   - Launch your kernels on the default stream (<<<grid, block>>> or <<<grid, block, shared_bytes>>>, no stream
//     argument) and return: the harness waits for the GPU itself and times the call with CUDA events. Do not create
//     streams (the grader refuses code that calls cudaStreamCreate*).
//   - Your own kernels only: calling cuBLAS (or any other matrix-multiply library) is refused by the grader, which
//     names the symbol. Arithmetic must be FP32: TF32 or half-precision tensor cores round the inputs to 10 bits
//     and fail the tolerance (see the handout).
//   - C is output only: it holds NaN when you are called, and every element must be overwritten, not added to.
//   - M, N and K are at least 1 and need not be multiples of anything: 1 x 1 x 1, 1000, 1023, 4097 x 769 x 513
//     are all tested. M * N, M * K and K * N are below 2^31.
//   - A and B are read only. The arrays do not overlap.
#pragma once

// Step 1, the course's first kernel: one thread computes one element of C, reading a row of A and a column of B
// straight from global memory. Choose the block shape (16 x 16 is the course's).
void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K);

// Step 2, shared-memory tiles: a block computes a T x T tile of C (one element per thread); for each step along K
// it loads a T x T tile of A and one of B into __shared__ memory, synchronises, and lets every thread read the
// 2T values it needs from there instead of from global memory.
void sgemm_shared(const float* A, const float* B, float* C, int M, int N, int K);

// Step 3, register blocking: each thread computes a small block of C (4 x 4, 8 x 8, ...) held in registers, so
// every value it reads from shared memory is used for several multiply-adds instead of one.
void sgemm_registers(const float* A, const float* B, float* C, int M, int N, int K);

// Your fastest C = A B, for every shape: the function the performance items time against cuBLAS at
// 4096 x 4096 x 4096 and 2048 x 2048 x 2048. Anything of your own goes: larger tiles, 16-byte loads, warp tiling,
// double-buffered shared memory, a separate kernel for edge tiles.
void sgemm_best(const float* A, const float* B, float* C, int M, int N, int K);
