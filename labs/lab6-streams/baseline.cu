// baseline.cu: the judge's side of lab 6, linked into the trusted worker only. None of it is a model solution:
//   - host memory: pinned (cudaMallocHost), so the judge's own copies run at the bus's full speed;
//   - the oracle: gemv_sync and gemv_streams are, here, y = A x summed on the host in long double (64-bit
//     significand) straight from the host arrays, exact to within the last bit of a double;
//   - the yardsticks (`lab6_judge_*`, weak in the harness, so the candidate has none of them):
//       sync_pageable   the synchronous program as a first attempt writes it: malloc'ed host memory, cudaMemcpy in,
//                       one kernel, cudaMemcpy out. The speedup item divides its time by the candidate's;
//       sync_pinned     the same program on pinned memory: what pinning alone buys, for the report;
//       copy_only       the transfer bound, measured: A and x copied in on one stream while y is copied out on
//                       another (PCIe moves both directions at once), no kernel. Nothing that must move those bytes
//                       can be faster, so "fraction of the transfer bound" is copy_only's time over the candidate's;
//       create_streams  cudaStreamCreate and cudaStreamDestroy of `streams` streams: what a stream costs.
#include <labkit/cuda.h>
#include <labkit/labkit.h>

#include <sched.h>

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

#include "streams.h"

namespace {

// y = A x on the host in long double, rows first to last.
void oracle_rows(const double* A, const double* x, double* y, std::int64_t n, std::int64_t first, std::int64_t last) {
  for (std::int64_t i = first; i < last; ++i) {
    long double sum = 0.0L;
    const double* row = A + i * n;
    for (std::int64_t j = 0; j < n; ++j) sum += static_cast<long double>(row[j]) * x[j];
    y[i] = static_cast<double>(sum);
  }
}

// y = A x on the host in long double, the rows shared among up to 16 threads (of the CPUs this process may use).
// Every timed call's outputs are checked against this, on the call's own fresh A: on 1 GiB one thread took longer
// than the call it checks several times over. Each thread's long double sum waits on the add's latency, not on
// memory, so up to the host's memory bandwidth more threads shorten every check (about one a round, between rounds,
// where nothing is timed: a grading's `checks` seconds). Each row is still summed in order by one thread, so y is the
// same, bit for bit, as one thread's. A thread that cannot be started leaves its rows to this one.
void host_oracle(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  constexpr std::int64_t one_thread_below = std::int64_t{1} << 22;  // elements: a thread would cost more than it saves
  cpu_set_t allowed;
  const int cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
  const std::int64_t threads =
      m * n < one_thread_below ? 1 : std::clamp<std::int64_t>(std::min<std::int64_t>(cpus, m), 1, 16);
  // Share t is rows [m t / threads, m (t + 1) / threads); this thread takes share 0, and every share from the
  // first that could not be started on.
  std::vector<std::thread> helpers;
  std::int64_t first_not_started = threads;
  for (std::int64_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(oracle_rows, A, x, y, n, m * t / threads, m * (t + 1) / threads);
    } catch (const std::system_error&) {
      first_not_started = t;
      break;
    }
  }
  oracle_rows(A, x, y, n, 0, m / threads);
  if (first_not_started < threads) oracle_rows(A, x, y, n, m * first_not_started / threads, m);
  for (auto& helper : helpers) helper.join();
}

// The yardsticks' kernels: a thread per row for short rows (a warp per row would leave most lanes idle), a warp per
// row otherwise. Decent, not tuned: on 1 GiB they take well under a millisecond next to a 20 ms copy.
__global__ void thread_per_row_kernel(const double* __restrict__ A, const double* __restrict__ x,
                                      double* __restrict__ y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= m) return;
  double sum = 0.0;
  for (std::int64_t j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
  y[row] = sum;
}

__global__ void warp_per_row_kernel(const double* __restrict__ A, const double* __restrict__ x, double* __restrict__ y,
                                    std::int64_t m, std::int64_t n) {
  const std::int64_t row = (blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= m) return;  // whole warps leave together
  double sum = 0.0;
  for (std::int64_t j = lane; j < n; j += 32) sum += A[row * n + j] * x[j];
  for (int offset = 16; offset > 0; offset >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[row] = sum;
}

void launch_gemv(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  constexpr int threads = 256;
  if (n < 32) {
    thread_per_row_kernel<<<static_cast<unsigned>((m + threads - 1) / threads), threads>>>(A, x, y, m, n);
  } else {
    warp_per_row_kernel<<<static_cast<unsigned>((m * 32 + threads - 1) / threads), threads>>>(A, x, y, m, n);
  }
  labkit::cuda::check_launch("the judge's gemv kernel");
}

void synchronous_program(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n,
                         DeviceWorkspace dev) {
  LABKIT_CUDA_CHECK(cudaMemcpy(dev.a, A, static_cast<std::size_t>(m * n) * sizeof(double), cudaMemcpyHostToDevice));
  LABKIT_CUDA_CHECK(cudaMemcpy(dev.x, x, static_cast<std::size_t>(n) * sizeof(double), cudaMemcpyHostToDevice));
  launch_gemv(dev.a, dev.x, dev.y, m, n);
  LABKIT_CUDA_CHECK(cudaMemcpy(y, dev.y, static_cast<std::size_t>(m) * sizeof(double), cudaMemcpyDeviceToHost));
}

// Pageable copies of the harness's (pinned) arrays, made on the first call with new inputs (a warm-up call, which
// is never timed) and kept, as a program that allocates with malloc would hold them.
struct PageableMirror {
  const double* source = nullptr;
  std::int64_t m = 0, n = 0;
  std::vector<double> a, x, y;

  void refresh(const double* A, const double* X, std::int64_t rows, std::int64_t cols) {
    if (source == A && m == rows && n == cols) return;
    source = A;
    m = rows;
    n = cols;
    a.assign(A, A + rows * cols);
    x.assign(X, X + cols);
    y.assign(static_cast<std::size_t>(rows), 0.0);  // touched: every page is mapped before the first timed call
  }
};

}  // namespace

double* host_alloc(std::size_t count) {
  void* p = nullptr;
  LABKIT_CUDA_CHECK(cudaMallocHost(&p, std::max<std::size_t>(count, 1) * sizeof(double)));
  return static_cast<double*>(p);
}

void host_free(double* p) { (void)cudaFreeHost(p); }

void gemv_sync(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, DeviceWorkspace) {
  host_oracle(A, x, y, m, n);
}
void gemv_streams(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int, DeviceWorkspace) {
  host_oracle(A, x, y, m, n);
}

extern "C" void lab6_judge_sync_pageable(const double* A, const double* x, double*, std::int64_t m, std::int64_t n, int,
                                         DeviceWorkspace dev) {
  static PageableMirror mirror;
  mirror.refresh(A, x, m, n);
  // y lands in the mirror: the baseline's outputs are never checked, and copying them on would add a host copy.
  synchronous_program(mirror.a.data(), mirror.x.data(), mirror.y.data(), m, n, dev);
}

extern "C" void lab6_judge_sync_pinned(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int,
                                       DeviceWorkspace dev) {
  synchronous_program(A, x, y, m, n, dev);
}

// Two non-blocking streams, made on the first (untimed) call and kept, so the bound holds no stream creation.
extern "C" void lab6_judge_copy_only(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int,
                                     DeviceWorkspace dev) {
  static cudaStream_t in = nullptr, out = nullptr;
  if (in == nullptr) {
    LABKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking));
    LABKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&out, cudaStreamNonBlocking));
  }
  LABKIT_CUDA_CHECK(
      cudaMemcpyAsync(dev.a, A, static_cast<std::size_t>(m * n) * sizeof(double), cudaMemcpyHostToDevice, in));
  LABKIT_CUDA_CHECK(
      cudaMemcpyAsync(dev.x, x, static_cast<std::size_t>(n) * sizeof(double), cudaMemcpyHostToDevice, in));
  LABKIT_CUDA_CHECK(
      cudaMemcpyAsync(y, dev.y, static_cast<std::size_t>(m) * sizeof(double), cudaMemcpyDeviceToHost, out));
  LABKIT_CUDA_CHECK(cudaStreamSynchronize(in));
  LABKIT_CUDA_CHECK(cudaStreamSynchronize(out));
}

extern "C" void lab6_judge_create_streams(const double*, const double*, double*, std::int64_t, std::int64_t,
                                          int streams, DeviceWorkspace) {
  std::vector<cudaStream_t> created(static_cast<std::size_t>(streams));
  for (auto& s : created) LABKIT_CUDA_CHECK(cudaStreamCreate(&s));
  for (auto& s : created) LABKIT_CUDA_CHECK(cudaStreamDestroy(s));
}
