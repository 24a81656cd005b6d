// baseline.cu: the judge's side of lab 7, linked into the trusted worker only. Three jobs, none of them a model
// solution:
//   - the oracle: each of the student's four functions is, here, C = A B accumulated in double precision on the
//     GPU and rounded to float once at the end. A product of two floats is exact in a double (24 + 24 significant
//     bits < 53), so the only error left is the double sum's (~k * 2^-53) and the final rounding: the expected C
//     is the correctly rounded one to within a unit in the last place, and the lab's tolerance only has to cover
//     the student's float rounding;
//   - the baseline (`lab7_judge_baseline`): the course's naive kernel, 16 x 16 threads, one element of C each,
//     written plainly. Every "speedup over naive" is measured against it: do not tune it;
//   - the professional figure (`lab7_judge_cublas`): cublasSgemm in true FP32 (CUBLAS_DEFAULT_MATH: no TF32), the
//     yardstick of the "fraction of cuBLAS" items and the same routine `grader calibrate` measures for the FP32 peak.
// The two judge-only entry points are weak in the harness, so the candidate (without this file) has neither.
#include <cublas_v2.h>
#include <labkit/cuda.h>
#include <labkit/labkit.h>

#include <string>

#include "sgemm.h"

namespace {

// ---- the oracle -------------------------------------------------------------------------------------------------
// 32 x 32 tiles of A and B in shared memory (as floats: they are exact), a 32 x 32 block of C per block of 32 x 8
// threads, 4 rows per thread, double accumulators. About 40 ms at 4096^3 on an H100: fast enough that the judge
// never dominates a grading.
constexpr int oracle_tile = 32;
constexpr int oracle_rows = 8;  // threadIdx.y extent; each thread owns oracle_tile / oracle_rows rows

__global__ void __launch_bounds__(oracle_tile * oracle_rows)
    oracle_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                  int K) {
  __shared__ float as[oracle_tile][oracle_tile + 1];
  __shared__ float bs[oracle_tile][oracle_tile + 1];
  constexpr int per_thread = oracle_tile / oracle_rows;
  const int col = blockIdx.x * oracle_tile + threadIdx.x;
  const int row0 = blockIdx.y * oracle_tile + threadIdx.y;
  double sum[per_thread] = {};
  for (int p0 = 0; p0 < K; p0 += oracle_tile) {
    for (int r = 0; r < per_thread; ++r) {
      const int ty = threadIdx.y + r * oracle_rows;
      const int a_row = blockIdx.y * oracle_tile + ty, a_col = p0 + threadIdx.x;
      const int b_row = p0 + ty, b_col = col;
      as[ty][threadIdx.x] = (a_row < M && a_col < K) ? A[static_cast<long long>(a_row) * K + a_col] : 0.0f;
      bs[ty][threadIdx.x] = (b_row < K && b_col < N) ? B[static_cast<long long>(b_row) * N + b_col] : 0.0f;
    }
    __syncthreads();
    for (int p = 0; p < oracle_tile; ++p) {
      const double b = bs[p][threadIdx.x];
      for (int r = 0; r < per_thread; ++r)
        sum[r] = fma(static_cast<double>(as[threadIdx.y + r * oracle_rows][p]), b, sum[r]);
    }
    __syncthreads();
  }
  for (int r = 0; r < per_thread; ++r) {
    const int row = row0 + r * oracle_rows;
    if (row < M && col < N) C[static_cast<long long>(row) * N + col] = static_cast<float>(sum[r]);
  }
}

void oracle(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(oracle_tile, oracle_rows);
  const dim3 grid((N + oracle_tile - 1) / oracle_tile, (M + oracle_tile - 1) / oracle_tile);
  oracle_kernel<<<grid, block>>>(A, B, C, M, N, K);
  labkit::cuda::check_launch("the judge's double-precision oracle");
}

// ---- the baseline: the course's naive kernel ---------------------------------------------------------------------
// threadIdx.x runs along a row of C, so a warp reads 32 consecutive elements of a row of B (coalesced) and one
// element of A (the same for all 32 threads).
__global__ void naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int p = 0; p < K; ++p) sum += A[row * K + p] * B[p * N + col];
    C[row * N + col] = sum;
  }
}

const char* cublas_status_text(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "a cuBLAS error";
  }
}

void cublas_check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw labkit::Error(std::string(cublas_status_text(status)) + " from " + call);
}

}  // namespace

void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) { oracle(A, B, C, M, N, K); }
void sgemm_shared(const float* A, const float* B, float* C, int M, int N, int K) { oracle(A, B, C, M, N, K); }
void sgemm_registers(const float* A, const float* B, float* C, int M, int N, int K) { oracle(A, B, C, M, N, K); }
void sgemm_best(const float* A, const float* B, float* C, int M, int N, int K) { oracle(A, B, C, M, N, K); }

extern "C" void lab7_judge_baseline(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(16, 16);
  const dim3 grid((N + 15) / 16, (M + 15) / 16);
  naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
  labkit::cuda::check_launch("the judge's naive baseline");
}

// cuBLAS is column-major. A row-major M x N matrix is the column-major N x M matrix of its transpose, so
// C = A B (row-major) is C^T = B^T A^T (column-major): the product of the column-major B (N x K, ld N) and A
// (K x M, ld K), with no transposition flags at all. The handle is made on the first call (a warm-up, untimed).
extern "C" void lab7_judge_cublas(const float* A, const float* B, float* C, int M, int N, int K) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    cublas_check(cublasCreate(&h), "cublasCreate");
    // CUBLAS_DEFAULT_MATH is true FP32 (tensor cores only with CUBLAS_TF32_TENSOR_OP_MATH); said explicitly,
    // since the comparison is only fair against the same arithmetic the students must use.
    cublas_check(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
    return h;
  }();
  const float one = 1.0f, zero = 0.0f;
  cublas_check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N), "cublasSgemm");
}
