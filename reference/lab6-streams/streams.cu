// streams.cu (reference): lab 6's hidden solution. Never shipped to students.
//
//   host_alloc     pinned memory (cudaMallocHost): the GPU's copy engines read and write it directly, at the bus's
//                  full speed, and cudaMemcpyAsync on it returns at once, so copies can overlap kernels and each other
//   gemv_sync      copy A and x in, one kernel, copy y out, in order on the default stream
//   gemv_streams   A cut into chunks of about 32 MiB, dealt round-robin to the streams; on each stream a chunk is
//                  copied in, multiplied and its rows of y copied out, so the copy engine always has the next chunk
//                  to move while kernels and copies back of earlier chunks run beside it:
//
//     H2D engine  | A0 | A1 | A2 | A3 | A4 | A5 | ...                  | A31 |
//     SMs              | k0 | k1 | k2 | k3 | k4 | ...                        | k31 |
//     D2H engine            | y0 | y1 | y2 | y3 | ...                             | y31 |
//
//                  The time is the copy in of A plus one chunk's kernel and copy out.
// The chunk size comes from bench/gpu/lab6_streams_bench.cu on an H100 (bench/gpu/lab6_lab7_results.md): 2 to 8 MiB
// chunks lose 5 to 20% to the cost of each copy and launch; 32 to 64 MiB chunks come within 2 to 4% of the transfer
// bound with 2 to 8 streams; one chunk per stream leaves the last quarter (4 streams) of y's copy back exposed.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "streams.h"

// Every runtime call is checked: a failure throws, and the grader reports the message as this code's error.
#define CHECK(call) check((call), #call)

namespace {

void check(cudaError_t status, const char* call) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(cudaGetErrorString(status)) + " from " + call);
}

// From the bench on an H100 (see the top of this file).
constexpr std::int64_t default_chunk_bytes = std::int64_t{32} << 20;

// Short rows: a thread per row, four independent sums (a warp per row would leave most of its lanes idle).
__global__ void thread_per_row_kernel(const double* __restrict__ A, const double* __restrict__ x,
                                      double* __restrict__ y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= m) return;
  const double* a = A + row * n;
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 += a[j] * x[j];
    s1 += a[j + 1] * x[j + 1];
    s2 += a[j + 2] * x[j + 2];
    s3 += a[j + 3] * x[j + 3];
  }
  for (; j < n; ++j) s0 += a[j] * x[j];
  y[row] = (s0 + s1) + (s2 + s3);
}

// Long rows: a block of 256 threads per row. A chunk holds few rows (128 of 8192 columns in 8 MiB), and a warp per
// row would give the GPU only 128 warps: a block per row puts 8 warps on each and keeps the kernel well under the
// chunk's copy time.
constexpr int row_block = 256;

__global__ void __launch_bounds__(row_block)
    block_per_row_kernel(const double* __restrict__ A, const double* __restrict__ x, double* __restrict__ y,
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

void launch_gemv(const double* A, const double* x, double* y, std::int64_t rows, std::int64_t n, cudaStream_t stream) {
  if (n < 64) {
    constexpr int threads = 256;
    const auto blocks = static_cast<unsigned>((rows + threads - 1) / threads);
    thread_per_row_kernel<<<blocks, threads, 0, stream>>>(A, x, y, rows, n);
  } else {
    // One block per row; grids hold at most 2^31 - 1 blocks along x, far above any chunk's row count.
    block_per_row_kernel<<<static_cast<unsigned>(rows), row_block, 0, stream>>>(A, x, y, n);
  }
}

// The pipeline, for any chunk size (the bench tries several).
void pipeline(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int streams,
              DeviceWorkspace dev, std::int64_t chunk_bytes) {
  // Chunks of about chunk_bytes, and never fewer chunks than streams (while there are rows to give).
  std::int64_t rows_per_chunk =
      std::max<std::int64_t>(1, chunk_bytes / (n * static_cast<std::int64_t>(sizeof(double))));
  rows_per_chunk = std::min(rows_per_chunk, (m + streams - 1) / streams);
  const std::int64_t chunks = (m + rows_per_chunk - 1) / rows_per_chunk;

  // Non-blocking: they never wait for the legacy default stream, nor it for them.
  std::vector<cudaStream_t> stream(static_cast<std::size_t>(streams));
  for (auto& s : stream) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  // x goes first, on stream 0; the other streams' kernels wait for it through an event, not the host.
  cudaEvent_t x_ready;
  CHECK(cudaEventCreateWithFlags(&x_ready, cudaEventDisableTiming));
  CHECK(cudaMemcpyAsync(dev.x, x, static_cast<std::size_t>(n) * sizeof(double), cudaMemcpyHostToDevice, stream[0]));
  CHECK(cudaEventRecord(x_ready, stream[0]));
  for (int s = 1; s < streams; ++s) CHECK(cudaStreamWaitEvent(stream[s], x_ready, 0));

  for (std::int64_t c = 0; c < chunks; ++c) {
    cudaStream_t s = stream[static_cast<std::size_t>(c % streams)];
    const std::int64_t first = c * rows_per_chunk;
    const std::int64_t rows = std::min(rows_per_chunk, m - first);
    CHECK(cudaMemcpyAsync(dev.a + first * n, A + first * n, static_cast<std::size_t>(rows * n) * sizeof(double),
                          cudaMemcpyHostToDevice, s));
    launch_gemv(dev.a + first * n, dev.x, dev.y + first, rows, n, s);
    CHECK(cudaMemcpyAsync(y + first, dev.y + first, static_cast<std::size_t>(rows) * sizeof(double),
                          cudaMemcpyDeviceToHost, s));
  }

  for (auto& s : stream) {
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaStreamDestroy(s));
  }
  CHECK(cudaEventDestroy(x_ready));
}

}  // namespace

double* host_alloc(std::size_t count) {
  void* p = nullptr;
  if (cudaMallocHost(&p, std::max<std::size_t>(count, 1) * sizeof(double)) != cudaSuccess) return nullptr;
  return static_cast<double*>(p);
}

void host_free(double* p) { (void)cudaFreeHost(p); }  // no throw: the harness calls it from a destructor

void gemv_sync(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, DeviceWorkspace dev) {
  CHECK(cudaMemcpy(dev.a, A, static_cast<std::size_t>(m * n) * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dev.x, x, static_cast<std::size_t>(n) * sizeof(double), cudaMemcpyHostToDevice));
  launch_gemv(dev.a, dev.x, dev.y, m, n, 0);
  CHECK(cudaMemcpy(y, dev.y, static_cast<std::size_t>(m) * sizeof(double), cudaMemcpyDeviceToHost));
}

void gemv_streams(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int streams,
                  DeviceWorkspace dev) {
  pipeline(A, x, y, m, n, streams, dev, default_chunk_bytes);
}
