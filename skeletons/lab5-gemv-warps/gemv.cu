// gemv.cu: your solution to lab 5 (GPU matrix-vector multiply with threads, warps and blocks). The handout
// is labs/lab5-gemv-warps/README.md; the rules every function must follow are in gemv.h.
//
// As given, gemv_thread_per_row is the course's first kernel (correct, and slow on most shapes), and the other
// three functions call a placeholder that is correct but runs on a single block: one SM out of 132. The grader
// checks that each version is the one its name says (lab.toml [steps]: its own kernels, a warp's shuffles, shared
// memory between a row's warps), so the placeholders earn nothing (verdict not_this_step). Replace each with the
// kernel its TODO describes.
//
//   grader lab5 --quick     correctness only
//   grader lab5             correctness, then the timed items and your score (needs an NVIDIA GPU; without
//                           one the grader still compiles everything and says it ran nothing)
#include "gemv.h"

namespace {  // kernels and helpers: keep them in here, so only the four functions of gemv.h are global

// One thread per row: thread `row` walks along row `row` and writes y[row].
__global__ void thread_per_row_kernel(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row < m) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
    y[row] = sum;
  }
}

// PLACEHOLDER: one block of 256 threads takes every row in turn. Correct for every shape, but it leaves 131 of
// the H100's 132 SMs idle. Do not keep it in your solution.
__global__ void placeholder_kernel(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t row = threadIdx.x; row < m; row += blockDim.x) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
    y[row] = sum;
  }
}

void placeholder(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  placeholder_kernel<<<1, 256>>>(A, x, y, m, n);
}

}  // namespace

// Given: the course's starting point. Try it on the tall and the wide shape in the report's numbers and
// explain both (handout: "Reading the numbers").
void gemv_thread_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  constexpr int threads = 256;
  const auto blocks = static_cast<unsigned>((m + threads - 1) / threads);
  thread_per_row_kernel<<<blocks, threads>>>(A, x, y, m, n);
}

// TODO(warp_per_row): one warp per row. Lane l of the warp for row i sums A[i][j] * x[j] for j = l, l + 32,
// ...; then five __shfl_down_sync steps (offsets 16, 8, 4, 2, 1) add the 32 partial sums into lane 0, which
// writes y[i]. Put several warps (rows) in one block, e.g. 8 warps = 256 threads = 8 rows, and make sure a
// warp whose row is past m does nothing (but never let half a warp skip a shuffle: see the handout).
void gemv_warp_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  placeholder(A, x, y, m, n);
}

// TODO(warps_per_row): `warps_per_row` warps share one row, one block per row (blockDim.x = 32 * warps_per_row,
// gridDim.x = m). Thread t of the block takes columns t, t + blockDim.x, ...; each warp reduces with shuffles,
// lane 0 of every warp writes its sum to a __shared__ array, __syncthreads(), and warp 0 adds those up.
void gemv_warps_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n,
                        int warps_per_row) {
  (void)warps_per_row;
  placeholder(A, x, y, m, n);
}

// TODO(best): the function the performance items time, on 10000 x 10000, 10 x 1,000,000 and 1,000,000 x 10.
// Pick a kernel and a launch shape from m and n. The handout's table says which kernel suits which shape and
// why the wide shape needs more than one block per row (use `scratch` for the partial sums, then a second
// small kernel to add them).
void gemv_best(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, double* scratch) {
  (void)scratch;
  placeholder(A, x, y, m, n);
}
