// sgemm.cu: your solution to lab 7 (single-precision matrix multiply, from a naive kernel to register blocking). The
// handout is labs/lab7-tiled-gemm/README.md; the rules every function must follow are in sgemm.h.
//
// As given, sgemm_naive is the course's first kernel (correct and slow), and the other three functions call it too.
// The grader checks that each version is the one its name says (lab.toml [steps]: shared-memory tiles between
// barriers, kernels of its own), so until you write them they earn nothing (verdict not_this_step). Replace each
// with the kernel its TODO describes; keep every version you write correct for sizes that are not multiples of
// your tiles.
//
//   grader lab7 --quick     correctness only
//   grader lab7             correctness, then the timed items and your score (needs an NVIDIA GPU; without one the
//                           grader still compiles everything and says it ran nothing)
#include "sgemm.h"

namespace {  // kernels and helpers: keep them in here, so only the four functions of sgemm.h are global

// One thread per element of C. threadIdx.x runs along a row of C, so the 32 threads of a warp read 32 consecutive
// elements of a row of B (one coalesced load) and all read the same element of A (one broadcast).
__global__ void naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int p = 0; p < K; ++p) sum += A[row * K + p] * B[p * N + col];
    C[row * N + col] = sum;
  }
}

}  // namespace

// Given: the course's naive kernel with 16 x 16 blocks.
void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(16, 16);
  const dim3 grid((N + 15) / 16, (M + 15) / 16);
  naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

// TODO(shared): a block of T x T threads (T = 16 or 32) computes a T x T tile of C. Loop over K in steps of T: each
// thread loads one element of the A tile and one of the B tile into __shared__ arrays (a zero where the element is
// outside the matrix, so the inner loop needs no bounds), __syncthreads(), adds its T products from shared memory,
// __syncthreads() again before the next tile overwrites the arrays. Each element of A and B is then read from
// global memory N/T and M/T times instead of N and M times.
void sgemm_shared(const float* A, const float* B, float* C, int M, int N, int K) { sgemm_naive(A, B, C, M, N, K); }

// TODO(registers): register blocking. A block computes a BM x BN tile of C (64 x 64, or 128 x 128) and each thread a
// TM x TN block of it (4 x 4, or 8 x 8) kept in a float array in registers: at each step p along the tile's K, the
// thread reads TM values of A and TN values of B from shared memory into registers and does TM * TN multiply-adds.
// Index the register arrays only with compile-time constants (#pragma unroll loops), or they move to slow local
// memory: `nvcc -Xptxas -v` prints "spill" and "stack frame" bytes when that happens.
void sgemm_registers(const float* A, const float* B, float* C, int M, int N, int K) { sgemm_naive(A, B, C, M, N, K); }

// TODO(best): your fastest kernel; the performance items compare it with cuBLAS at 4096 and 2048. In order of what
// each step bought the course (handout, "From there to cuBLAS"): 8 x 8 per thread and 128 x 128 per block;
// A stored transposed in shared memory so both operands are read as float4; 16-byte (float4) global loads; warp
// tiling; double-buffered shared memory (load tile t + 1 while computing tile t). Keep a checked path for sizes
// that are not multiples of your tiles.
void sgemm_best(const float* A, const float* B, float* C, int M, int N, int K) { sgemm_naive(A, B, C, M, N, K); }
