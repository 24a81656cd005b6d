// baseline.cu: the judge's side of lab 5, linked into the trusted worker only. Three jobs, none of them a
// model solution:
//   - the oracle: each of the student's four functions is, here, y = A x summed on the host in long double
//     (64-bit significand) from a copy of A and x read back from the device. Its answers are exact to within
//     the last bit of a double, so the lab's tolerance only has to cover the student's rounding, not ours;
//   - the baseline (`lab5_judge_baseline`): the course's first kernel, one thread per row, written plainly.
//     Every speedup in the report is measured against it; do not tune it, or every speedup in the class moves;
//   - the professional figure (`lab5_judge_cublas`): cuBLAS dgemv on the same data, for the report.
// The two judge-only entry points are weak in the harness, so the candidate (without this file) has neither.
#include <cublas_v2.h>
#include <labkit/labkit.h>
#include <labkit/cuda.h>

#include <sched.h>

#include <algorithm>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "gemv.h"

namespace {

// Rows [first, last) of a slice of A (row-major, n columns), each summed in order in long double by one thread.
void oracle_rows(const double* slice, const double* hx, double* hy, std::int64_t n, std::int64_t first,
                 std::int64_t last) {
  for (std::int64_t r = first; r < last; ++r) {
    long double sum = 0.0L;
    const double* row = slice + r * n;
    for (std::int64_t j = 0; j < n; ++j) sum += static_cast<long double>(row[j]) * hx[j];
    hy[r] = static_cast<double>(sum);
  }
}

// The slice's rows shared among up to 16 threads (of the CPUs this process may use): every checked timed call of
// the 10000 x 10000 items is summed here, 10^8 long double adds that wait on each other's latency (about a
// quarter of a second on one thread). A row is still summed by one thread in order, so y is the same, bit for bit,
// as one thread's. A thread that cannot be started leaves its rows to this one.
void oracle_rows_in_parallel(const double* slice, const double* hx, double* hy, std::int64_t n, std::int64_t rows) {
  constexpr std::int64_t one_thread_below = std::int64_t{1} << 22;  // elements: a thread would cost more than it saves
  cpu_set_t allowed;
  const int cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
  const std::int64_t threads =
      rows * n < one_thread_below ? 1 : std::clamp<std::int64_t>(std::min<std::int64_t>(cpus, rows), 1, 16);
  std::vector<std::thread> helpers;
  std::int64_t first_not_started = threads;
  for (std::int64_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(oracle_rows, slice, hx, hy, n, rows * t / threads, rows * (t + 1) / threads);
    } catch (const std::system_error&) {
      first_not_started = t;
      break;
    }
  }
  oracle_rows(slice, hx, hy, n, 0, rows / threads);
  if (first_not_started < threads) oracle_rows(slice, hx, hy, n, rows * first_not_started / threads, rows);
  for (auto& helper : helpers) helper.join();
}

// Where slices of A land on the host: pinned memory, kept for the worker's life, so a read-back runs at the bus's
// speed (a pageable one took longer than the sums); pageable if the driver will not pin it.
double* staging_for(std::size_t count, std::vector<double>& pageable) {
  static double* pinned = nullptr;
  static std::size_t pinned_count = 0;
  if (pinned_count < count) {
    if (pinned != nullptr) (void)cudaFreeHost(pinned);
    pinned = nullptr;
    pinned_count = 0;
    if (cudaMallocHost(reinterpret_cast<void**>(&pinned), count * sizeof(double)) == cudaSuccess) {
      pinned_count = count;
    } else {
      (void)cudaGetLastError();
      pinned = nullptr;
    }
  }
  if (pinned != nullptr) return pinned;
  pageable.resize(count);
  return pageable.data();
}

// y = A x on the host, from the device's A and x. Rows are read back a slice at a time so the judge never
// holds a second full copy of A (800 MB at 10000 x 10000).
void host_oracle(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  std::vector<double> hx(static_cast<std::size_t>(n));
  LABKIT_CUDA_CHECK(cudaMemcpy(hx.data(), x, hx.size() * sizeof(double), cudaMemcpyDeviceToHost));
  const std::int64_t rows_per_slice = std::max<std::int64_t>(1, (std::int64_t{1} << 23) / n);  // about 64 MB
  std::vector<double> pageable, hy(static_cast<std::size_t>(m));
  double* slice = staging_for(static_cast<std::size_t>(std::min(rows_per_slice, m) * n), pageable);
  for (std::int64_t first = 0; first < m; first += rows_per_slice) {
    const std::int64_t rows = std::min(rows_per_slice, m - first);
    LABKIT_CUDA_CHECK(cudaMemcpy(slice, A + first * n, static_cast<std::size_t>(rows * n) * sizeof(double),
                                 cudaMemcpyDeviceToHost));
    oracle_rows_in_parallel(slice, hx.data(), hy.data() + first, n, rows);
  }
  LABKIT_CUDA_CHECK(cudaMemcpy(y, hy.data(), hy.size() * sizeof(double), cudaMemcpyHostToDevice));
}

__global__ void thread_per_row_kernel(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= m) return;
  double sum = 0.0;
  for (std::int64_t j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
  y[row] = sum;
}

const char* cublas_status_text(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    default: return "a cuBLAS error";
  }
}

void cublas_check(cublasStatus_t status, const char* call) {
  if (status != CUBLAS_STATUS_SUCCESS) throw labkit::Error(std::string(cublas_status_text(status)) + " from " + call);
}

}  // namespace

void gemv_thread_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  host_oracle(A, x, y, m, n);
}
void gemv_warp_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  host_oracle(A, x, y, m, n);
}
void gemv_warps_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int) {
  host_oracle(A, x, y, m, n);
}
void gemv_best(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, double*) {
  host_oracle(A, x, y, m, n);
}

extern "C" void lab5_judge_baseline(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  constexpr int threads = 256;
  const auto blocks = static_cast<unsigned>((m + threads - 1) / threads);
  thread_per_row_kernel<<<blocks, threads>>>(A, x, y, m, n);
  labkit::cuda::check_launch("the judge's thread-per-row baseline");
}

// Row-major A (m x n) is column-major A^T (n x m) with leading dimension n, so y = A x is op(B) = B^T
// applied to x with B = the column-major n x m matrix.
extern "C" void lab5_judge_cublas(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  static cublasHandle_t handle = [] {
    cublasHandle_t h = nullptr;
    cublas_check(cublasCreate(&h), "cublasCreate");
    return h;
  }();
  const double one = 1.0, zero = 0.0;
  cublas_check(cublasDgemv_64(handle, CUBLAS_OP_T, n, m, &one, A, n, x, 1, &zero, y, 1), "cublasDgemv_64");
}
