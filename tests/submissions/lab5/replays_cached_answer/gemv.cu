// Threat: work skipped across timed calls at a plausible speed, on the GPU (issue 16: "lab5 device-side cache +
// spin kernel 88/110"). Every version is one thread per row; after computing it keeps y in a static device array,
// keyed by the input pointers, the sizes and a few sampled entries of A and x. Called again with the same key it
// copies the old y back and spins on the device for a believable time (a third of what computing took).
// Expected verdict: correctness passes (first calls compute); every performance item 0 points: the timed calls'
// inputs are fresh (elements of A and x changed at secret positions), so the replayed y is checked against the
// judge's for the new inputs and is wrong.
#include <cuda_runtime.h>

#include <vector>

#include "gemv.h"

namespace {

constexpr std::int64_t kept_rows = 1000000;
__device__ double kept_y[kept_rows];

__global__ void row_kernel(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= m) return;
  double sum = 0.0;
  for (std::int64_t j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
  y[row] = sum;
}

__global__ void replay_kernel(double* y, std::int64_t m, unsigned long long spin_ns) {
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < m;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    y[i] = kept_y[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    unsigned long long now = start;
    while (now - start < spin_ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

__global__ void keep_kernel(const double* y, std::int64_t m) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < m;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    kept_y[i] = y[i];
}

struct Key {
  const double *a = nullptr, *x = nullptr;
  std::int64_t m = 0, n = 0;
  std::vector<double> samples;
  bool operator==(const Key& o) const { return a == o.a && x == o.x && m == o.m && n == o.n && samples == o.samples; }
};

void cached(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  static Key* last = new Key();
  static unsigned long long honest_ns = 0;
  Key key{A, x, m, n, std::vector<double>(16)};
  for (int s = 0; s < 8; ++s) {
    cudaMemcpy(&key.samples[2 * s], A + (s * 7919LL) % (m * n), sizeof(double), cudaMemcpyDeviceToHost);
    cudaMemcpy(&key.samples[2 * s + 1], x + (s * 104729LL) % n, sizeof(double), cudaMemcpyDeviceToHost);
  }
  if (m <= kept_rows && key == *last) {
    replay_kernel<<<256, 256>>>(y, m, honest_ns / 3);
    return;
  }
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  row_kernel<<<static_cast<unsigned>((m + 255) / 256), 256>>>(A, x, y, m, n);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (m <= kept_rows) {
    keep_kernel<<<256, 256>>>(y, m);
    cudaDeviceSynchronize();
    *last = key;
    honest_ns = static_cast<unsigned long long>(ms * 1e6);
  }
}

}  // namespace

void gemv_thread_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) { cached(A, x, y, m, n); }
void gemv_warp_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) { cached(A, x, y, m, n); }
void gemv_warps_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int) {
  cached(A, x, y, m, n);
}
void gemv_best(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, double*) { cached(A, x, y, m, n); }
