// Threat: keeping the bus's work from one call to the next (issue 16: "lab6 keeps the 1 GiB matrix between calls in
// a static __device__ array, skips the copy on repeated calls", and "a full device-side cache reported as speedup
// 42.34x of the transfer bound and passed"). Pinned memory; on the first call with a given A (same pointer, same
// shape, same few sampled elements) it copies A into a static device array of 1 GiB and keeps it there; every later
// call copies only x, computes from the kept A and copies y back: almost none of the measured work.
// Expected verdict: correctness passes; every performance item 0 points: each timed call's A is fresh (elements of
// the pinned host matrix changed at secret positions), so y from the kept A is wrong, and a time far below the
// transfer bound measured in the same run (`bound = "copy_only"`) is SUSPECT.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "streams.h"

// Every runtime call goes through CHECK: a failure throws, and the grader shows the message as your code's error
// (an unchecked failure would only show up later, as a wrong y).
#define CHECK(call) check((call), #call)

namespace {  // kernels and helpers: keep them in here, so only the functions of streams.h are global

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(cudaGetErrorString(status)) + " from " + call);
}

// Short rows: one thread per row.
__global__ void thread_per_row_kernel(const double* __restrict__ A, const double* __restrict__ x,
                                      double* __restrict__ y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= m) return;
  double sum = 0.0;
  for (std::int64_t j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
  y[row] = sum;
}

// Long rows: one block of 256 threads per row; each warp adds its lanes with shuffles, then warp 0 adds the warps.
constexpr int row_block = 256;

__global__ void block_per_row_kernel(const double* __restrict__ A, const double* __restrict__ x, double* __restrict__ y,
                                     std::int64_t n) {
  const double* a = A + blockIdx.x * n;
  double sum = 0.0;
  for (std::int64_t j = threadIdx.x; j < n; j += row_block) sum += a[j] * x[j];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  __shared__ double partial[row_block / 32];
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = threadIdx.x < row_block / 32 ? partial[threadIdx.x] : 0.0;
    for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (threadIdx.x == 0) y[blockIdx.x] = sum;
  }
}

// y[0 .. rows) = A[0 .. rows) x, on `stream` (0 is the default stream). A, x, y are device pointers: pass the chunk's
// part of the workspace (dev.a + first_row * n, dev.y + first_row).
void launch_gemv(const double* A, const double* x, double* y, std::int64_t rows, std::int64_t n, cudaStream_t stream) {
  if (n < 64) {
    constexpr int threads = 256;
    const auto blocks = static_cast<unsigned>((rows + threads - 1) / threads);
    thread_per_row_kernel<<<blocks, threads, 0, stream>>>(A, x, y, rows, n);
  } else {
    block_per_row_kernel<<<static_cast<unsigned>(rows), row_block, 0, stream>>>(A, x, y, n);
  }
  CHECK(cudaGetLastError());
}

}  // namespace

// TODO(pinned): return pinned (page-locked) host memory instead: cudaMallocHost, or cudaHostAlloc. Pageable memory
// cannot be read by the GPU's copy engines directly, so every copy from it is staged through a pinned buffer of
// the driver's, by the CPU, and cudaMemcpyAsync from it does not overlap anything. Return nullptr on failure.
double* host_alloc(std::size_t count) {
  void* p = nullptr;
  if (cudaMallocHost(&p, std::max<std::size_t>(count, 1) * sizeof(double)) != cudaSuccess) return nullptr;
  return static_cast<double*>(p);
}

// TODO(pinned): release what host_alloc returned (cudaFreeHost for cudaMallocHost). Do not throw from here.
void host_free(double* p) { (void)cudaFreeHost(p); }

// Given: the synchronous program. cudaMemcpy returns only when the copy is done, and the kernel waits for it on
// the default stream, so nothing overlaps: the time is copy in + kernel + copy out.
void gemv_sync(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, DeviceWorkspace dev) {
  CHECK(cudaMemcpy(dev.a, A, static_cast<std::size_t>(m * n) * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dev.x, x, static_cast<std::size_t>(n) * sizeof(double), cudaMemcpyHostToDevice));
  launch_gemv(dev.a, dev.x, dev.y, m, n, 0);
  CHECK(cudaMemcpy(y, dev.y, static_cast<std::size_t>(m) * sizeof(double), cudaMemcpyDeviceToHost));
}

namespace {

constexpr std::int64_t kept_elements = std::int64_t{1} << 27;  // 1 GiB of doubles: both timed shapes
__device__ double kept_a[kept_elements];

struct Key {
  const double* a = nullptr;
  std::int64_t m = 0, n = 0;
  double samples[8] = {};
  bool operator==(const Key& o) const {
    if (a != o.a || m != o.m || n != o.n) return false;
    for (int s = 0; s < 8; ++s)
      if (samples[s] != o.samples[s]) return false;
    return true;
  }
};

}  // namespace

void gemv_streams(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int streams,
                  DeviceWorkspace dev) {
  (void)streams;
  static Key last;
  Key key{A, m, n, {}};
  for (int s = 0; s < 8; ++s) key.samples[s] = A[(s * 7919LL * n + s) % (m * n)];
  if (m * n > kept_elements) return gemv_sync(A, x, y, m, n, dev);
  double* kept = nullptr;
  CHECK(cudaGetSymbolAddress(reinterpret_cast<void**>(&kept), kept_a));
  if (!(key == last)) {
    CHECK(cudaMemcpy(kept, A, static_cast<std::size_t>(m * n) * sizeof(double), cudaMemcpyHostToDevice));
    last = key;
  }
  CHECK(cudaMemcpy(dev.x, x, static_cast<std::size_t>(n) * sizeof(double), cudaMemcpyHostToDevice));
  launch_gemv(kept, dev.x, dev.y, m, n, 0);
  CHECK(cudaMemcpy(y, dev.y, static_cast<std::size_t>(m) * sizeof(double), cudaMemcpyDeviceToHost));
}
