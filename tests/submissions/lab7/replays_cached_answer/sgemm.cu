// Threat: work skipped across timed calls at a plausible speed, on the GPU (issue 16: "lab7 naive kernel + result
// cache + spin 100/100"). Every version is the naive kernel; after computing it keeps C in a static device array,
// keyed by the input pointers, the sizes and a few sampled entries of A and B. Called again with the same key it
// copies the old C back and spins on the device until a believable time has passed (half of what computing took),
// under every roofline ceiling.
// Expected verdict: correctness passes (first calls compute); every performance item 0 points: the timed calls'
// inputs are fresh (elements of A and B changed at secret positions), so the replayed C is checked against the
// judge's C for the new inputs and is wrong.
#include <cuda_runtime.h>

#include <vector>

#include "sgemm.h"

namespace {

constexpr long long kept_elements = 4096LL * 4096LL;
__device__ float kept_c[kept_elements];

__global__ void naive_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int p = 0; p < K; ++p) sum += A[static_cast<long long>(row) * K + p] * B[static_cast<long long>(p) * N + col];
  C[static_cast<long long>(row) * N + col] = sum;
}

__global__ void replay_kernel(float* C, long long count, unsigned long long spin_ns) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    C[i] = kept_c[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    unsigned long long now = start;
    while (now - start < spin_ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

__global__ void keep_kernel(const float* C, long long count) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    kept_c[i] = C[i];
}

struct Key {
  const float *a = nullptr, *b = nullptr;
  int m = 0, n = 0, k = 0;
  std::vector<float> samples;
  bool operator==(const Key& o) const {
    return a == o.a && b == o.b && m == o.m && n == o.n && k == o.k && samples == o.samples;
  }
};

Key make_key(const float* A, const float* B, int M, int N, int K) {
  Key key{A, B, M, N, K, std::vector<float>(16)};
  for (int s = 0; s < 8; ++s) {
    cudaMemcpy(&key.samples[2 * s], A + (s * 7919LL) % (static_cast<long long>(M) * K), sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(&key.samples[2 * s + 1], B + (s * 104729LL) % (static_cast<long long>(K) * N), sizeof(float), cudaMemcpyDeviceToHost);
  }
  return key;
}

void cached(const float* A, const float* B, float* C, int M, int N, int K) {
  static Key* last = new Key();
  static unsigned long long honest_ns = 0;
  const long long count = static_cast<long long>(M) * N;
  const Key key = make_key(A, B, M, N, K);
  if (count <= kept_elements && key == *last) {
    replay_kernel<<<1024, 256>>>(C, count, honest_ns / 2);
    return;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  naive_kernel<<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (count <= kept_elements) {
    keep_kernel<<<1024, 256>>>(C, count);
    cudaDeviceSynchronize();
    *last = key;
    honest_ns = static_cast<unsigned long long>(ms * 1e6);
  }
}

}  // namespace

void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) { cached(A, B, C, M, N, K); }
void sgemm_shared(const float* A, const float* B, float* C, int M, int N, int K) { cached(A, B, C, M, N, K); }
void sgemm_registers(const float* A, const float* B, float* C, int M, int N, int K) { cached(A, B, C, M, N, K); }
void sgemm_best(const float* A, const float* B, float* C, int M, int N, int K) { cached(A, B, C, M, N, K); }
