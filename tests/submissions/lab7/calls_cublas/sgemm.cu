// Broken submission for lab 7: calls_cublas.
// sgemm_best calls cublasSgemm (the other three run the naive kernel). The lab links every build with -lcublas (the
// judge needs it), so this links; the grader must refuse it before anything runs, from the undefined symbols of this
// object: cublasSgemm_v2 and cublasCreate_v2 (cublas_v2.h maps the names).
// Expected verdict: report status policy_refused, its details naming cublasSgemm_v2; total 0.
#include <cublas_v2.h>

#include "sgemm.h"

namespace {

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

void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(16, 16);
  const dim3 grid((N + 15) / 16, (M + 15) / 16);
  naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}
void sgemm_shared(const float* A, const float* B, float* C, int M, int N, int K) { sgemm_naive(A, B, C, M, N, K); }
void sgemm_registers(const float* A, const float* B, float* C, int M, int N, int K) { sgemm_naive(A, B, C, M, N, K); }

void sgemm_best(const float* A, const float* B, float* C, int M, int N, int K) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    cublasCreate(&h);
    return h;
  }();
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
}
