// gemv.cu (reference): lab 5's hidden solution. Never shipped to students.
//
// The three course kernels, each written the way the handout describes, and a dispatcher (gemv_best) that
// beats cuBLAS dgemv on every graded shape by matching the kernel to the shape:
//
//   shape                      what limits a simple kernel            what gemv_best does
//   square (10000 x 10000)     one warp per row: 10000 warps are      a block per row reading A as 16-byte
//                              barely more than one wave              double2, 8 loads in flight per thread
//   wide (10 x 1,000,000)      one block per row: 10 blocks on 132    split each row over many blocks (grid.y);
//                              SMs use 8% of the GPU                  a second tiny kernel adds the partial sums
//   tall (1,000,000 x 10)      a warp per row leaves 22 of 32 lanes   a block stages 128 whole rows (contiguous
//                              idle; a thread per row reads 32 rows   in memory) into shared memory with
//                              at once, 80 bytes apart                coalesced 16-byte loads, then one thread
//                                                                     finishes each row from shared memory
//
// A is streamed once, so it is loaded with __ldcs (evict-first): it should not push x out of the caches.
// The launch shapes in choose_config() come from bench/gpu/lab5_gemv_bench.cu on an H100 (see its README).
#include <algorithm>
#include <cstdint>

#include "gemv.h"

namespace {

constexpr unsigned full_mask = 0xffffffffu;

// The sum of v over the warp, in every lane (xor butterfly: no lane is left holding a partial).
__device__ __forceinline__ double warp_sum(double v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(full_mask, v, offset);
  return v;
}

// ---- 1. one thread per row ---------------------------------------------------------------------------------
// Four independent partial sums, so the loop is limited by memory, not by the latency of one chain of adds.
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

// ---- 2. one warp per row ----------------------------------------------------------------------------------
constexpr int warp_kernel_warps = 8;  // rows (warps) per block

__global__ void __launch_bounds__(32 * warp_kernel_warps)
    warp_per_row_kernel(const double* __restrict__ A, const double* __restrict__ x, double* __restrict__ y,
                        std::int64_t m, std::int64_t n) {
  const int lane = threadIdx.x % 32;
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(warp_kernel_warps) + threadIdx.x / 32;
  if (row >= m) return;  // the whole warp leaves together, so the shuffles below stay full-warp
  const double* a = A + row * n;
  double s0 = 0, s1 = 0;
  std::int64_t j = lane;
  for (; j + 32 < n; j += 64) {
    s0 += a[j] * x[j];
    s1 += a[j + 32] * x[j + 32];
  }
  if (j < n) s0 += a[j] * x[j];
  const double sum = warp_sum(s0 + s1);
  if (lane == 0) y[row] = sum;
}

// ---- 3. several warps per row: one block per row ------------------------------------------------------------
__global__ void warps_per_row_kernel(const double* __restrict__ A, const double* __restrict__ x,
                                     double* __restrict__ y, std::int64_t n) {
  __shared__ double warp_sums[32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  const double* a = A + blockIdx.x * n;
  double sum = 0;
  for (std::int64_t j = threadIdx.x; j < n; j += blockDim.x) sum += a[j] * x[j];
  sum = warp_sum(sum);
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();  // every warp's sum is in shared memory before warp 0 reads them
  if (warp == 0) {
    sum = warp_sum(lane < warps ? warp_sums[lane] : 0.0);
    if (lane == 0) y[blockIdx.x] = sum;
  }
}

// ---- best, kernel A: short rows through shared memory --------------------------------------------------------
// A block owns `rows` consecutive rows, i.e. one contiguous stretch of rows * n doubles: it copies the stretch
// to shared memory with coalesced 16-byte loads, then thread t adds up row t from there.
template <int ROWS>
__global__ void __launch_bounds__(ROWS)
    short_rows_kernel(const double* __restrict__ A, const double* __restrict__ x, double* __restrict__ y,
                      std::int64_t m, int n) {
  extern __shared__ double tile[];  // ROWS * n doubles
  const std::int64_t row0 = blockIdx.x * static_cast<std::int64_t>(ROWS);
  const int rows = m - row0 < ROWS ? static_cast<int>(m - row0) : ROWS;
  const int count = rows * n;
  const double* src = A + row0 * n;
  if (((row0 * n) & 1) == 0) {  // 16-byte aligned: cudaMalloc'ed A starts on a 256-byte boundary
    const double2* src2 = reinterpret_cast<const double2*>(src);
    double2* tile2 = reinterpret_cast<double2*>(tile);
#pragma unroll 4
    for (int i = threadIdx.x; i < count / 2; i += ROWS) tile2[i] = __ldcs(src2 + i);
    if ((count & 1) && threadIdx.x == 0) tile[count - 1] = __ldcs(src + count - 1);
  } else {
#pragma unroll 4
    for (int i = threadIdx.x; i < count; i += ROWS) tile[i] = __ldcs(src + i);
  }
  __syncthreads();
  if (threadIdx.x < rows) {
    const double* r = tile + threadIdx.x * n;
    double s0 = 0, s1 = 0;
    int j = 0;
    for (; j + 2 <= n; j += 2) {
      s0 += r[j] * __ldg(x + j);
      s1 += r[j + 1] * __ldg(x + j + 1);
    }
    if (j < n) s0 += r[j] * __ldg(x + j);
    y[row0 + threadIdx.x] = s0 + s1;
  }
}

// ---- best, kernel B: G threads per row, rows optionally split over blocks ------------------------------------
// A block of 256 threads holds 256 / G rows. blockIdx.y picks columns [c0, c0 + chunk) of those rows; with a
// single split the block writes y, otherwise partials[split * m + row] for finish_rows_kernel to add.
// Each thread issues UNROLL 16-byte loads of A before it uses any (bytes in flight are what keeps HBM busy),
// the last, partial round too; LDG picks the read-only cache path for A instead of evict-first loads.
constexpr int group_block = 256;

template <bool LDG>
__device__ __forceinline__ double2 load_a(const double2* p) {
  if constexpr (LDG) {
    return __ldg(p);
  } else {
    return __ldcs(p);
  }
}

template <int G, int UNROLL, bool LDG>
__global__ void __launch_bounds__(group_block)
    group_rows_kernel(const double* __restrict__ A, const double* __restrict__ x, double* __restrict__ out,
                      std::int64_t m, std::int64_t n, std::int64_t chunk) {
  static_assert(G % 32 == 0 && group_block % G == 0, "a row group is whole warps and a block is whole groups");
  constexpr int rows_per_block = group_block / G;
  const int g = threadIdx.x % G;
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(rows_per_block) + threadIdx.x / G;
  double sum = 0;
  if (row < m) {
    const double* a = A + row * n;
    std::int64_t begin = blockIdx.y * chunk;
    const std::int64_t end = begin + chunk < n ? begin + chunk : n;
    // Peel one element if needed so that a + begin is 16-byte aligned (row * n + begin even).
    if (begin < end && ((row * n + begin) & 1)) {
      if (g == 0) sum = a[begin] * __ldg(x + begin);
      ++begin;
    }
    const std::int64_t pairs = (end - begin) / 2;
    const double2* a2 = reinterpret_cast<const double2*>(a + begin);
    const double* xb = x + begin;
    const bool x_aligned = (begin & 1) == 0;  // the same for the whole row: no divergence
    auto load_x = [&](std::int64_t q) {
      return x_aligned ? __ldg(reinterpret_cast<const double2*>(xb) + q) : make_double2(__ldg(xb + 2 * q), __ldg(xb + 2 * q + 1));
    };
    double s[4] = {0, 0, 0, 0};
    std::int64_t p = g;
    for (; p + (UNROLL - 1) * G < pairs; p += UNROLL * G) {
      double2 v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = load_a<LDG>(a2 + p + u * G);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const double2 xv = load_x(p + u * G);
        s[u % 4] += v[u].x * xv.x + v[u].y * xv.y;
      }
    }
    {  // the last, partial round: all of its loads issued at once, predicated
      double2 v[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) v[u] = p + u * G < pairs ? load_a<LDG>(a2 + p + u * G) : make_double2(0, 0);
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        if (p + u * G < pairs) {
          const double2 xv = load_x(p + u * G);
          s[u % 4] += v[u].x * xv.x + v[u].y * xv.y;
        }
      }
    }
    if (g == 0 && ((end - begin) & 1)) s[1] += a[end - 1] * __ldg(x + end - 1);
    sum += (s[0] + s[1]) + (s[2] + s[3]);
  }
  sum = warp_sum(sum);
  if constexpr (G > 32) {
    __shared__ double warp_sums[group_block / 32];
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (g == 0) {
      const int first = threadIdx.x / 32;
      sum = 0;
      for (int w = 0; w < G / 32; ++w) sum += warp_sums[first + w];
    }
  }
  if (g == 0 && row < m) out[(gridDim.y == 1 ? 0 : blockIdx.y * m) + row] = sum;
}

// y[row] = the sum of `splits` partials, one warp per row.
__global__ void finish_rows_kernel(const double* __restrict__ partials, double* __restrict__ y, std::int64_t m,
                                   int splits) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x / 32) + threadIdx.x / 32;
  if (row >= m) return;
  double sum = 0;
  for (int s = threadIdx.x % 32; s < splits; s += 32) sum += partials[s * m + row];
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) y[row] = sum;
}

int multiprocessors() {
  static const int count = [] {
    int device = 0, sms = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    return sms > 0 ? sms : 132;
  }();
  return count;
}

// How gemv_best runs one shape. kind short_rows: `group` is the rows per block; kind group_rows: `group` is
// threads per row, `splits` the blocks that share each row, `unroll` the loads in flight per thread and `ldg`
// the cache path for A.
struct Config {
  enum Kind { short_rows, group_rows } kind = group_rows;
  int group = 256;
  int splits = 1;
  int unroll = 4;
  bool ldg = false;
};

template <int ROWS>
void launch_short_rows(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const auto blocks = static_cast<unsigned>((m + ROWS - 1) / ROWS);
  short_rows_kernel<ROWS><<<blocks, ROWS, ROWS * n * sizeof(double)>>>(A, x, y, m, static_cast<int>(n));
}

template <int G, int UNROLL, bool LDG>
void launch_group_rows(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, int splits,
                       double* scratch) {
  constexpr int rows_per_block = group_block / G;
  std::int64_t chunk = (n + splits - 1) / splits;
  chunk += chunk & 1;  // even, so every split but the first starts 16-byte aligned when n is even
  const int used = static_cast<int>((n + chunk - 1) / chunk);
  const dim3 grid(static_cast<unsigned>((m + rows_per_block - 1) / rows_per_block), static_cast<unsigned>(used));
  group_rows_kernel<G, UNROLL, LDG><<<grid, group_block>>>(A, x, used == 1 ? y : scratch, m, n, chunk);
  if (used > 1) {
    constexpr int finish_warps = 8;
    finish_rows_kernel<<<static_cast<unsigned>((m + finish_warps - 1) / finish_warps), 32 * finish_warps>>>(scratch, y, m, used);
  }
}

template <int G>
void launch_group(const Config& c, const double* A, const double* x, double* y, std::int64_t m, std::int64_t n,
                  double* scratch) {
  if (c.unroll >= 8) {
    if (c.ldg) return launch_group_rows<G, 8, true>(A, x, y, m, n, c.splits, scratch);
    return launch_group_rows<G, 8, false>(A, x, y, m, n, c.splits, scratch);
  }
  if (c.ldg) return launch_group_rows<G, 4, true>(A, x, y, m, n, c.splits, scratch);
  return launch_group_rows<G, 4, false>(A, x, y, m, n, c.splits, scratch);
}

void launch(const Config& c, const double* A, const double* x, double* y, std::int64_t m, std::int64_t n,
            double* scratch) {
  if (c.kind == Config::short_rows) {
    if (c.group == 256 && n <= 16) return launch_short_rows<256>(A, x, y, m, n);  // 256 x 16 doubles: 32 KB
    return launch_short_rows<128>(A, x, y, m, n);
  }
  switch (c.group) {
    case 256: return launch_group<256>(c, A, x, y, m, n, scratch);
    case 128: return launch_group<128>(c, A, x, y, m, n, scratch);
    case 64: return launch_group<64>(c, A, x, y, m, n, scratch);
    default: return launch_group<32>(c, A, x, y, m, n, scratch);
  }
}

// The launch shape for m x n (measured on an H100 and an H200: bench/gpu/README.md).
//  - Short rows (n <= 32) go through shared memory: 128 rows of at most 32 doubles is at most 32 KB, under the
//    48 KB a block gets without opting in.
//  - Long rows: a whole block (256 threads) per row with 8 loads in flight per thread, which is what passes
//    cuBLAS at 10000 x 10000; shorter rows get fewer threads and 4 loads, so every thread still has work.
//  - Few rows: split every row over several blocks until there is about one wave of threads (more splits
//    only add partial sums: 100 splits beat 200 and 400 on the wide shape), with at least 2048 columns per
//    split and every partial within the scratch space.
Config choose_config(std::int64_t m, std::int64_t n) {
  if (n <= 32) return {Config::short_rows, 128, 1};
  Config c;
  c.kind = Config::group_rows;
  c.group = n >= 2048 ? 256 : n >= 256 ? 128 : n >= 128 ? 64 : 32;
  const std::int64_t resident_threads = static_cast<std::int64_t>(multiprocessors()) * 2048;
  const std::int64_t threads = m * c.group;
  if (threads < resident_threads) {
    std::int64_t splits = (resident_threads + threads - 1) / threads;
    splits = std::min(splits, std::max<std::int64_t>(1, n / 2048));
    splits = std::min(splits, gemv_scratch_doubles / m);
    c.splits = static_cast<int>(std::max<std::int64_t>(1, splits));
  }
  c.unroll = c.splits == 1 && n >= 4096 ? 8 : 4;
  return c;
}

}  // namespace

void gemv_thread_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  constexpr int threads = 128;
  thread_per_row_kernel<<<static_cast<unsigned>((m + threads - 1) / threads), threads>>>(A, x, y, m, n);
}

void gemv_warp_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const auto blocks = static_cast<unsigned>((m + warp_kernel_warps - 1) / warp_kernel_warps);
  warp_per_row_kernel<<<blocks, 32 * warp_kernel_warps>>>(A, x, y, m, n);
}

void gemv_warps_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n,
                        int warps_per_row) {
  warps_per_row_kernel<<<static_cast<unsigned>(m), 32 * warps_per_row>>>(A, x, y, n);
}

void gemv_best(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n, double* scratch) {
  launch(choose_config(m, n), A, x, y, m, n, scratch);
}
