// Threat: GPU work hidden on a side stream. gemv_best launches its kernel on a non-blocking stream of its own and
// returns without waiting. The lab kit ends a timed call with an event on the legacy default stream
// (labkit/cuda.h, CudaProblem::time_once), which waits for every blocking stream but not for a non-blocking one:
// the kernel would run on past the clock and the call would look almost free. Two defences: lab5 forbids
// creating streams ([policy] forbid in its lab.toml), read off the object before anything runs, GPU or no GPU;
// and the lab kit reads the outputs of a timed call before it synchronises the device, so work still running
// shows as outputs that changed after the call returned. The other three functions are plain, correct kernels
// on the default stream.
// Expected verdicts (tests/e2e/e2e.py, lab5-side-stream): policy_refused naming cudaStreamCreateWithFlags; in a
// copy of lab5 that lets streams through, correct answers and SUSPECT timings, never a speed it did not have.
#include <cstdint>

#include "gemv.h"

namespace {

__global__ void thread_per_row_kernel(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= m) return;
  double sum = 0;
  for (std::int64_t j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
  y[row] = sum;
}

// The block's partial sums into y[blockIdx.x]: each warp reduces with shuffles, then the warps combine through
// shared memory. Inlined, so each kernel keeps its shared memory and barrier in its own code (the steps rules read it).
__device__ __forceinline__ void store_block_sum(double sum, double* y) {
  __shared__ double warp_sums[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    double total = 0;
    for (int w = 0; w < warps; ++w) total += warp_sums[w];
    y[blockIdx.x] = total;
  }
}

// One block of `blockDim.x` threads (a multiple of 32) per row.
__global__ void block_per_row_kernel(const double* A, const double* x, double* y, std::int64_t n) {
  const double* a = A + blockIdx.x * n;
  double sum = 0;
  for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) sum += a[j] * x[j];
  store_block_sum(sum, y);
}

// gemv_best's kernel: block_per_row_kernel with two sums in flight per thread, so that no step's function launches
// the kernel the best one does (the steps rules, docs/lab-toml.md).
__global__ void best_kernel(const double* A, const double* x, double* y, std::int64_t n) {
  const double* a = A + blockIdx.x * n;
  double even = 0, odd = 0;
  std::int64_t j = threadIdx.x;
  for (; j + blockDim.x < n; j += 2 * blockDim.x) {
    even += a[j] * x[j];
    odd += a[j + blockDim.x] * x[j + blockDim.x];
  }
  if (j < n) even += a[j] * x[j];
  double sum = even + odd;
  store_block_sum(sum, y);
}

// One warp per row, its own kernel: the steps rules hold gemv_warp_per_row to a kernel gemv_best does not also
// launch, and this submission's threat is the side stream, not a step that is the best one renamed.
__global__ void warp_per_row_kernel(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x / 32) + threadIdx.x / 32;
  if (row >= m) return;
  const int lane = threadIdx.x % 32;
  double sum = 0;
  for (std::int64_t j = lane; j < n; j += 32) sum += A[row * n + j] * x[j];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[row] = sum;
}

}  // namespace

void gemv_thread_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  constexpr int block = 256;
  thread_per_row_kernel<<<static_cast<unsigned>((m + block - 1) / block), block>>>(A, x, y, m, n);
}

void gemv_warp_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  constexpr int warps_per_block = 8;
  warp_per_row_kernel<<<static_cast<unsigned>((m + warps_per_block - 1) / warps_per_block), 32 * warps_per_block>>>(
      A, x, y, m, n);
}

void gemv_warps_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n,
                        int warps_per_row) {
  block_per_row_kernel<<<static_cast<unsigned>(m), 32 * warps_per_row>>>(A, x, y, n);
}

// The side stream first waits (on the device, not the host) for what the legacy stream already holds: the
// harness's inputs and the poisoned y. So the answers are right once the device is idle, and only the clock is
// fooled: the end-of-call event on the legacy stream does not wait for this kernel.
void gemv_best(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, double*) {
  static cudaStream_t side = [] {
    cudaStream_t stream = nullptr;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    return stream;
  }();
  static cudaEvent_t inputs_ready = [] {
    cudaEvent_t event = nullptr;
    cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    return event;
  }();
  cudaEventRecord(inputs_ready, cudaStreamLegacy);
  cudaStreamWaitEvent(side, inputs_ready, 0);
  best_kernel<<<static_cast<unsigned>(m), 256, 0, side>>>(A, x, y, n);
}
