// gemv.h: the interface of lab 5 (GPU matrix-vector multiply: threads, warps, blocks). The harness calls
// these four functions and nothing else; your gemv.cu defines them. Do not change this file: the grader uses
// its own copy.
//
// Every function computes y = A x in double precision, where A has m rows and n columns, stored row-major:
//
//   y[i] = A[i][0] * x[0] + A[i][1] * x[1] + ... + A[i][n-1] * x[n-1]      for i = 0 .. m-1
//
// Common rules for all four:
//   - A, x and y are DEVICE pointers (cudaMalloc'ed by the harness); element (i, j) of A is A[i * n + j].
//     The harness uploads A and x before the first call and reads y back after the last.
//   - Launch your kernels on the default stream (the <<<grid, block>>> form without a stream argument) and
//     return: the harness waits for the GPU itself and times the call with CUDA events. Do not create
//     streams (the grader refuses code that calls cudaStreamCreate*), and do not synchronise the device
//     unless your algorithm needs the host to see a result (none here does).
//   - y is output only: it holds NaN when you are called, and every y[i] must be overwritten, not added to.
//   - m and n are at least 1 and can be anything from there: 1 x 1, 10 x 1,000,000, 1,000,000 x 10,
//     997 x 1013. Nothing is a multiple of 32 unless the case happens to make it so. m * n fits in int64_t
//     but can exceed 2^31: index with std::int64_t.
//   - A and x are read only. The arrays do not overlap.
#pragma once

#include <cstdint>

// Doubles of scratch device memory the harness passes to gemv_best (8 MiB). Its contents are garbage (NaN)
// on entry; use it for partial sums when several blocks share a row.
inline constexpr std::int64_t gemv_scratch_doubles = std::int64_t{1} << 20;

// The course's first kernel: one thread computes one whole row (y[i] for i = its global thread index).
// Choose the block size; the grid covers all m rows.
void gemv_thread_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n);

// One warp (32 threads) per row: lane l adds A[i][j] * x[j] for j = l, l + 32, l + 64, ... (consecutive
// lanes read consecutive addresses: coalesced), then the warp adds its 32 partial sums with
// __shfl_down_sync and lane 0 writes y[i].
void gemv_warp_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n);

// `warps_per_row` warps (1 to 32) share one row: each warp reduces its partial sum with shuffles, then the
// warps combine theirs through shared memory (__syncthreads between writing and reading). One block per row
// is the natural shape (blockDim.x = 32 * warps_per_row); the tests call it with 1, 2, 4, 8 and 32.
void gemv_warps_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n,
                        int warps_per_row);

// Your fastest y = A x for every shape: pick the kernel and the launch shape from m and n (your own
// kernels, in any number). This is the function the performance items time, on a square, a wide
// (10 x 1,000,000) and a tall (1,000,000 x 10) matrix. `scratch` holds gemv_scratch_doubles doubles.
void gemv_best(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, double* scratch);
