// streams.cu: your solution to lab 6 (CUDA streams: y = A x for a matrix that starts in host memory). The handout
// is labs/lab6-streams/README.md; the rules every function must follow are in streams.h.
//
// As given, everything is correct and nothing is fast: host_alloc returns ordinary pageable memory (malloc),
// gemv_sync is the synchronous program, and gemv_streams just calls gemv_sync. That passes the correctness tests and
// earns no performance points. The gemv kernels are given (they are lab 5's subject, not this lab's); the TODOs are
// about memory and streams.
//
//   grader lab6 --quick     correctness only
//   grader lab6             correctness, then the timed items and your score (needs an NVIDIA GPU; without one the
//                           grader still compiles everything and says it ran nothing)
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
  return static_cast<double*>(std::malloc(std::max<std::size_t>(count, 1) * sizeof(double)));
}

// TODO(pinned): release what host_alloc returned (cudaFreeHost for cudaMallocHost). Do not throw from here.
void host_free(double* p) { std::free(p); }

// Given: the synchronous program. cudaMemcpy returns only when the copy is done, and the kernel waits for it on
// the default stream, so nothing overlaps: the time is copy in + kernel + copy out.
void gemv_sync(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, DeviceWorkspace dev) {
  CHECK(cudaMemcpy(dev.a, A, static_cast<std::size_t>(m * n) * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dev.x, x, static_cast<std::size_t>(n) * sizeof(double), cudaMemcpyHostToDevice));
  launch_gemv(dev.a, dev.x, dev.y, m, n, 0);
  CHECK(cudaMemcpy(y, dev.y, static_cast<std::size_t>(m) * sizeof(double), cudaMemcpyDeviceToHost));
}

// TODO(streams): the pipeline.
//   1. create `streams` streams (cudaStreamCreate, or cudaStreamCreateWithFlags(..., cudaStreamNonBlocking));
//   2. copy x to the device (every chunk's kernel needs all of x: copy it first, and make sure no kernel starts
//      before it has arrived: the simplest way is a synchronous cudaMemcpy before anything else);
//   3. cut the m rows into chunks (the last one may be shorter; there may be fewer rows than streams) and, for
//      chunk c, on stream c % streams: cudaMemcpyAsync its rows of A into dev.a, launch_gemv on those rows, and
//      cudaMemcpyAsync its part of dev.y back into y;
//   4. wait for every stream (cudaStreamSynchronize), destroy them, return.
// Try more chunks than streams (the handout's "How many chunks?"), and time stream creation on its own.
void gemv_streams(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int streams,
                  DeviceWorkspace dev) {
  (void)streams;
  gemv_sync(A, x, y, m, n, dev);
}
