// sgemm.cu (reference): lab 7's hidden solution. Never shipped to students.
//
// The course's four steps, each written the way the handout describes, plus the kernel behind sgemm_best:
//
//   version      tile of C per block   per thread     what it adds
//   naive        16 x 16               1 element      (the course's first kernel)
//   shared       32 x 32               1 element      A and B tiles staged in shared memory
//   registers    128 x 128             8 x 8          register blocking: each value read from shared memory feeds
//                                                     8 multiply-adds; A stored transposed so reads are float4
//   (double)     128 x 128             8 x 8          + warp tiling (a warp owns a 32 x 64 patch, so its shared-
//                                                     memory reads are broadcasts and conflict-free float4s),
//                                                     16-byte global loads, double-buffered shared memory (the
//                                                     next tile's loads are in flight while this one is computed),
//                                                     blocks ordered in groups of 8 block rows (L2 reuse); the
//                                                     best version until 2026-11-21, kept for the bench
//   best         128 x 256 (k 16)      16 x 8         + cp.async: global memory copied straight into a 3-stage
//                                                     shared-memory pipeline, no registers spent on staging, so a
//                                                     thread holds 128 accumulators (warps of 64 x 64)
//
// On an H100 at 4096: naive 5.4 TFLOP/s, shared 8.6, registers 37.6, double-buffered 44.0, best 47.0; cuBLAS 51.2
// (best = 91 to 92% of it; 93 to 95% at 2048).
//
// Sizes that are not multiples of the tile take the same kernels with bounds-checked loads and stores (the template
// flag kChecked): correct everywhere, fast where the shape allows. The tile configuration of sgemm_best comes from
// bench/gpu/lab7_sgemm_bench.cu on an H100 (see bench/gpu/lab6_lab7_results.md).
#include <cstdint>

#include "sgemm.h"

namespace {

// ---- 1. naive ---------------------------------------------------------------------------------------------------
__global__ void naive_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // x along a row of C: a warp reads a row of B, coalesced
  if (row >= M || col >= N) return;
  float sum = 0.0f;
  for (int p = 0; p < K; ++p) sum += A[row * K + p] * B[p * N + col];
  C[row * N + col] = sum;
}

// ---- 2. shared-memory tiles ---------------------------------------------------------------------------------------
constexpr int shared_tile = 32;

__global__ void __launch_bounds__(shared_tile * shared_tile)
    shared_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                  int K) {
  __shared__ float as[shared_tile][shared_tile];
  __shared__ float bs[shared_tile][shared_tile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * shared_tile + ty;
  const int col = blockIdx.x * shared_tile + tx;
  float sum = 0.0f;
  for (int p0 = 0; p0 < K; p0 += shared_tile) {
    // Out-of-range elements load as zeros, so the inner loop needs no bounds at all.
    as[ty][tx] = (row < M && p0 + tx < K) ? A[row * K + p0 + tx] : 0.0f;
    bs[ty][tx] = (p0 + ty < K && col < N) ? B[(p0 + ty) * N + col] : 0.0f;
    __syncthreads();  // the tiles are complete before anyone reads them
#pragma unroll
    for (int p = 0; p < shared_tile; ++p) sum += as[ty][p] * bs[p][tx];  // as[ty][p]: one address per warp, a broadcast
    __syncthreads();  // everyone is done reading before the next tile overwrites them
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

// ---- 3 and 4. register blocking, warp tiling, double buffering ---------------------------------------------------
//
// A block computes a BM x BN tile of C with (BM / WM) x (BN / WN) warps; a warp computes a WM x WN patch; a thread
// computes TM x TN elements, as (TM / 4) x (TN / 4) sub-tiles of 4 x 4 spread over the warp's patch:
//
//        warp patch WM x WN (here 32 x 64, 4 x 8 threads, TM = TN = 8)
//        +-----------------------------+-----------------------------+
//        | t0 t1 ... t7   (4 x 4 each) | t0 t1 ... t7                |   sub-tile row 0 (16 rows)
//        | t8 ...   t15                | t8 ...  t15                 |
//        | ...     t31                 | ...     t31                 |
//        +-----------------------------+-----------------------------+
//        | t0 t1 ... t7                | t0 t1 ... t7                |   sub-tile row 1
//        | ...                         | ...                         |
//        +-----------------------------+-----------------------------+
//
// so at each step p of the inner loop a thread reads TM values of A and TN of B as float4s: eight neighbouring
// threads read eight consecutive float4 of B (128 bytes, no bank conflict) and the same float4 of A (a broadcast).
// A is stored transposed in shared memory (as[p][m]) for that; its rows are padded by 4 floats so that the
// transposing stores of two k-quarters land in different banks.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN>
struct Tiling {
  static constexpr int warps = (BM / WM) * (BN / WN);
  static constexpr int threads = 32 * warps;
  static constexpr int lanes_n = WN / TN;                // threads of a warp along N
  static constexpr int lanes_m = WM / TM;                // threads of a warp along M
  static constexpr int a_stride = BM + 4;                // padded row of the transposed A tile
  static constexpr int a_loads = BM * BK / 4 / threads;  // float4 loads of A per thread per tile
  static constexpr int b_loads = BK * BN / 4 / threads;
  static_assert(BM % WM == 0 && BN % WN == 0, "warps must tile the block exactly");
  static_assert(lanes_n * lanes_m == 32, "a warp's 32 threads must tile its patch exactly: WM*WN/(TM*TN) == 32");
  static_assert(TM % 4 == 0 && TN % 4 == 0,
                "threads read A and B from shared memory as float4: TM and TN multiples of 4");
  static_assert(BK % 4 == 0, "A is loaded from global memory as float4 along K: BK a multiple of 4");
  static_assert(a_loads * threads == BM * BK / 4 && b_loads * threads == BK * BN / 4,
                "every thread loads the same number of float4 of each tile");
  static constexpr int shared_floats = BK * a_stride + BK * BN;  // one stage
};

// The global loads of one K-tile, held in registers between the load and the store to shared memory.
template <class T>
struct TileLoads {
  float4 a[T::a_loads];
  float4 b[T::b_loads];
};

template <int BM, int BN, int BK, class T, bool kChecked>
__device__ __forceinline__ void load_tile(TileLoads<T>& r, const float* __restrict__ A, const float* __restrict__ B,
                                          int M, int N, int K, int m0, int n0, int p0) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int l = 0; l < T::a_loads; ++l) {
    const int idx = tid + l * T::threads;
    const int row = idx / (BK / 4), quad = idx % (BK / 4);  // two neighbouring threads read 32 bytes of one row
    const int gm = m0 + row, gp = p0 + quad * 4;
    if constexpr (!kChecked) {
      r.a[l] = *reinterpret_cast<const float4*>(A + static_cast<std::int64_t>(gm) * K + gp);
    } else {
      const float* src = A + static_cast<std::int64_t>(gm) * K;
      const bool in = gm < M;
      r.a[l].x = (in && gp + 0 < K) ? src[gp + 0] : 0.0f;
      r.a[l].y = (in && gp + 1 < K) ? src[gp + 1] : 0.0f;
      r.a[l].z = (in && gp + 2 < K) ? src[gp + 2] : 0.0f;
      r.a[l].w = (in && gp + 3 < K) ? src[gp + 3] : 0.0f;
    }
  }
#pragma unroll
  for (int l = 0; l < T::b_loads; ++l) {
    const int idx = tid + l * T::threads;
    const int row = idx / (BN / 4), quad = idx % (BN / 4);
    const int gp = p0 + row, gn = n0 + quad * 4;
    if constexpr (!kChecked) {
      r.b[l] = *reinterpret_cast<const float4*>(B + static_cast<std::int64_t>(gp) * N + gn);
    } else {
      const float* src = B + static_cast<std::int64_t>(gp) * N;
      const bool in = gp < K;
      r.b[l].x = (in && gn + 0 < N) ? src[gn + 0] : 0.0f;
      r.b[l].y = (in && gn + 1 < N) ? src[gn + 1] : 0.0f;
      r.b[l].z = (in && gn + 2 < N) ? src[gn + 2] : 0.0f;
      r.b[l].w = (in && gn + 3 < N) ? src[gn + 3] : 0.0f;
    }
  }
}

template <int BM, int BN, int BK, class T, bool kChecked>
__device__ __forceinline__ void store_tile(const TileLoads<T>& r, float* as, float* bs) {
  const int tid = threadIdx.x;
#pragma unroll
  for (int l = 0; l < T::a_loads; ++l) {
    const int idx = tid + l * T::threads;
    const int row = idx / (BK / 4), quad = idx % (BK / 4);
    as[(quad * 4 + 0) * T::a_stride + row] = r.a[l].x;  // transposed: as[p][m]
    as[(quad * 4 + 1) * T::a_stride + row] = r.a[l].y;
    as[(quad * 4 + 2) * T::a_stride + row] = r.a[l].z;
    as[(quad * 4 + 3) * T::a_stride + row] = r.a[l].w;
  }
#pragma unroll
  for (int l = 0; l < T::b_loads; ++l) {
    const int idx = tid + l * T::threads;
    const int row = idx / (BN / 4), quad = idx % (BN / 4);
    *reinterpret_cast<float4*>(bs + row * BN + quad * 4) = r.b[l];
  }
}

// How a blocked kernel runs, beyond its tile shape:
//   double_buffer  two shared-memory stages, the next tile's global loads issued before this tile's arithmetic (one
//                  __syncthreads per tile); otherwise one stage, load - sync - compute - sync (plain register blocking)
//   prefetch       read the fragments of step p + 1 from shared memory before the multiply-adds of step p
//   group          0, or the number of block rows a group of consecutive blocks covers, so that the blocks running at
//                  the same time share rows of A and columns of B in the L2 cache (row-by-row order otherwise)
//   min_blocks     blocks per SM the compiler must leave registers for (__launch_bounds__)
// The launcher takes a Schedule; the kernel takes its fields as separate template arguments, because nvcc's host stubs
// cannot name a class-type template argument of a kernel.
struct Schedule {
  bool double_buffer;
  bool prefetch;
  int group;
  int min_blocks;
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, bool kDouble, bool kPrefetch, int kGroup,
          int kMinBlocks, bool kChecked>
__global__ void __launch_bounds__(Tiling<BM, BN, BK, WM, WN, TM, TN>::threads, kMinBlocks)
    blocked_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                   int K) {
  using T = Tiling<BM, BN, BK, WM, WN, TM, TN>;
  extern __shared__ float4 shared_words[];  // float4: 16-byte aligned for the vector accesses
  float* shared = reinterpret_cast<float*>(shared_words);
  // Stage s: the transposed A tile (BK rows of a_stride), then the B tile (BK rows of BN).
  auto a_stage = [&](int s) { return shared + s * T::shared_floats; };
  auto b_stage = [&](int s) { return shared + s * T::shared_floats + BK * T::a_stride; };

  int tile_m = blockIdx.y, tile_n = blockIdx.x;
  if constexpr (kGroup > 0) {
    // Blocks are numbered row by row; renumber them so that each group of kGroup block rows is walked column by
    // column: the blocks in flight then cover a squarer patch of C.
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    const int per_group = kGroup * gridDim.x;
    const int first = (block / per_group) * kGroup;
    const int rows = min(static_cast<int>(gridDim.y) - first, kGroup);
    tile_m = first + (block % per_group) % rows;
    tile_n = (block % per_group) / rows;
  }
  const int m0 = tile_m * BM, n0 = tile_n * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_m = (warp / (BN / WN)) * WM, warp_n = (warp % (BN / WN)) * WN;
  const int lane_m = (lane / T::lanes_n) * 4, lane_n = (lane % T::lanes_n) * 4;
  constexpr int sub_m = TM / 4, sub_n = TN / 4;                            // 4 x 4 sub-tiles per thread
  constexpr int sub_m_step = 4 * T::lanes_m, sub_n_step = 4 * T::lanes_n;  // rows / columns between sub-tiles

  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];  // two sets: step p's, and step p + 1's when prefetching
  TileLoads<T> loads;
  const int tiles = (K + BK - 1) / BK;

  // Step p's TM values of A and TN values of B, as float4s, into fragment set f.
  auto read_fragments = [&](const float* a_tile, const float* b_tile, int p, int f) {
#pragma unroll
    for (int i = 0; i < sub_m; ++i) {
      const float4 v = *reinterpret_cast<const float4*>(a_tile + p * T::a_stride + warp_m + i * sub_m_step + lane_m);
      a_frag[f][4 * i + 0] = v.x;
      a_frag[f][4 * i + 1] = v.y;
      a_frag[f][4 * i + 2] = v.z;
      a_frag[f][4 * i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < sub_n; ++j) {
      const float4 v = *reinterpret_cast<const float4*>(b_tile + p * BN + warp_n + j * sub_n_step + lane_n);
      b_frag[f][4 * j + 0] = v.x;
      b_frag[f][4 * j + 1] = v.y;
      b_frag[f][4 * j + 2] = v.z;
      b_frag[f][4 * j + 3] = v.w;
    }
  };

  // All loops unrolled: every index of acc and the fragments is a compile-time constant, so they stay in registers.
  auto compute = [&](const float* a_tile, const float* b_tile) {
    if constexpr (kPrefetch) read_fragments(a_tile, b_tile, 0, 0);
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      const int f = kPrefetch ? p % 2 : 0;
      if constexpr (kPrefetch) {
        if (p + 1 < BK) read_fragments(a_tile, b_tile, p + 1, (p + 1) % 2);
      } else {
        read_fragments(a_tile, b_tile, p, 0);
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[f][i], b_frag[f][j], acc[i][j]);
    }
  };

  if constexpr (kDouble) {
    load_tile<BM, BN, BK, T, kChecked>(loads, A, B, M, N, K, m0, n0, 0);
    store_tile<BM, BN, BK, T, kChecked>(loads, a_stage(0), b_stage(0));
    __syncthreads();
    for (int t = 0; t < tiles; ++t) {
      const int cur = t & 1;
      const bool more = t + 1 < tiles;
      if (more) load_tile<BM, BN, BK, T, kChecked>(loads, A, B, M, N, K, m0, n0, (t + 1) * BK);  // in flight...
      compute(a_stage(cur), b_stage(cur));                                                       // ...during this
      // The other stage was last read during tile t - 1, and everyone passed the barrier after it.
      if (more) store_tile<BM, BN, BK, T, kChecked>(loads, a_stage(cur ^ 1), b_stage(cur ^ 1));
      __syncthreads();
    }
  } else {
    for (int t = 0; t < tiles; ++t) {
      load_tile<BM, BN, BK, T, kChecked>(loads, A, B, M, N, K, m0, n0, t * BK);
      store_tile<BM, BN, BK, T, kChecked>(loads, a_stage(0), b_stage(0));
      __syncthreads();
      compute(a_stage(0), b_stage(0));
      __syncthreads();
    }
  }

  // Each row of a 4 x 4 sub-tile is one float4 of C: eight neighbouring threads write 128 consecutive bytes.
#pragma unroll
  for (int i = 0; i < sub_m; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int gm = m0 + warp_m + i * sub_m_step + lane_m + r;
#pragma unroll
      for (int j = 0; j < sub_n; ++j) {
        const int gn = n0 + warp_n + j * sub_n_step + lane_n;
        const float* v = &acc[4 * i + r][4 * j];
        if constexpr (!kChecked) {
          *reinterpret_cast<float4*>(C + static_cast<std::int64_t>(gm) * N + gn) = make_float4(v[0], v[1], v[2], v[3]);
        } else if (gm < M) {
          float* dst = C + static_cast<std::int64_t>(gm) * N;
#pragma unroll
          for (int c = 0; c < 4; ++c)
            if (gn + c < N) dst[gn + c] = v[c];
        }
      }
    }
  }
}

// The launcher: the fast path when the tiles cover C and K exactly (then every float4 is in range and 16-byte
// aligned, since K and N are multiples of 4 and cudaMalloc aligns to 256 bytes), the checked path otherwise.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, Schedule S>
void launch_blocked(const float* A, const float* B, float* C, int M, int N, int K) {
  using T = Tiling<BM, BN, BK, WM, WN, TM, TN>;
  constexpr int bytes = (S.double_buffer ? 2 : 1) * T::shared_floats * static_cast<int>(sizeof(float));
  static_assert(bytes <= 227 * 1024, "the tiles must fit in an H100 SM's 227 KB of shared memory");
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  const bool exact = M % BM == 0 && N % BN == 0 && K % BK == 0;
  auto kernel =
      exact ? blocked_kernel<BM, BN, BK, WM, WN, TM, TN, S.double_buffer, S.prefetch, S.group, S.min_blocks, false>
            : blocked_kernel<BM, BN, BK, WM, WN, TM, TN, S.double_buffer, S.prefetch, S.group, S.min_blocks, true>;
  if constexpr (bytes > 48 * 1024) {
    // Beyond 48 KB a kernel must opt in to dynamic shared memory (once per kernel; cheap after the first call).
    (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  }
  kernel<<<grid, T::threads, bytes>>>(A, B, C, M, N, K);
}

// ---- 5. cp.async pipeline (sgemm_best) --------------------------------------------------------------------------
//
// The double-buffered kernel above stages each tile in registers: global load into registers, multiply-adds of the
// current tile, then store to shared memory. Those registers (a float4 per load) and the stores come out of the same
// budget as the accumulators. Since sm_80, cp.async copies global memory straight into shared memory without passing
// through registers, so the copies of several tiles can be in flight at once (kStages shared-memory stages, the
// copies of tile t + kStages - 1 issued while tile t is computed) and cost a thread one instruction each. With the
// registers free, a thread can hold 16 x 8 accumulators instead of 8 x 8: each step's 6 float4 reads of shared memory
// then feed 128 multiply-adds instead of 4 reads 64.
//
// cp.async copies bytes as they are, so A cannot be transposed by a float4 load and four stores any more: it is
// copied one float at a time (4-byte cp.async) into the transposed tile. A warp copies 4 rows x 8 k of A per
// instruction: in global memory that is 4 full 32-byte sectors, and in shared memory (rows of BM + 4 floats, so k
// moves 4 banks) the 32 floats land in 32 different banks. B needs no transposing: 16-byte copies.
// Out-of-range elements (kChecked) are copied with a source size of 0, which fills the destination with zeros.
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void copy4_async(unsigned dst, const float* src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}

// 4 bytes, or zeros when !in (src is then never read, but must still be a valid address).
__device__ __forceinline__ void copy4_async(unsigned dst, const float* src, bool in) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(in ? 4 : 0) : "memory");
}

__device__ __forceinline__ void copy16_async(unsigned dst, const float* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}

__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Wait until at most `pending` of this thread's committed groups are still in flight.
template <int pending>
__device__ __forceinline__ void wait_copies() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
}

// Which elements of a tile a thread copies. Fixed for the whole kernel: from tile to tile only the source pointers
// move, by BK columns of A and BK rows of B, so the loop spends a few additions per tile on addresses (the first
// version computed them from the thread index for every tile: ~100 instructions per tile, and up to 10% slower).
//   A: copy (j, h) is row a_row + j * a_rows_apart, k a_k + 8 h; a warp's 32 lanes cover 4 rows x 8 k
//   B: copy l is row b_row + l * b_rows_apart, columns b_col .. b_col + 3
template <int BM, int BN, int BK, class T>
struct CopyPlan {
  static constexpr int a_rows_apart = 4 * T::warps;
  static constexpr int a_row_copies = BM / a_rows_apart;  // j
  static constexpr int a_k_copies = BK / 8;               // h
  static constexpr int b_rows_apart = T::threads / (BN / 4);
  static constexpr int b_copies = BK / b_rows_apart;
  static_assert(BM % 32 == 0 && BK % 8 == 0 && BM % a_rows_apart == 0,
                "A's copies: whole 4 x 8 chunks, the same number per thread, rows of BM + 4 floats (BM % 32 == 0)");
  static_assert(T::threads % (BN / 4) == 0 && BK % b_rows_apart == 0,
                "every thread copies the same number of float4 of B");
};

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kStages, bool kPrefetch, int kGroup,
          int kMinBlocks, bool kChecked>
__global__ void __launch_bounds__(Tiling<BM, BN, BK, WM, WN, TM, TN>::threads, kMinBlocks)
    pipelined_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                     int K) {
  using T = Tiling<BM, BN, BK, WM, WN, TM, TN>;
  using Plan = CopyPlan<BM, BN, BK, T>;
  static_assert(kStages >= 2, "at least two stages: one being computed, one being copied into");
  extern __shared__ float4 shared_words[];
  float* shared = reinterpret_cast<float*>(shared_words);
  constexpr unsigned stage_bytes = T::shared_floats * sizeof(float);

  int tile_m = blockIdx.y, tile_n = blockIdx.x;
  if constexpr (kGroup > 0) {  // as in blocked_kernel
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    const int per_group = kGroup * gridDim.x;
    const int first = (block / per_group) * kGroup;
    const int rows = min(static_cast<int>(gridDim.y) - first, kGroup);
    tile_m = first + (block % per_group) % rows;
    tile_n = (block % per_group) / rows;
  }
  const int m0 = tile_m * BM, n0 = tile_n * BN;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tiles = (K + BK - 1) / BK;

  // The copy plan: this thread's first element of A and of B in the next tile to copy, and where they go in a stage.
  const int a_row = 4 * warp + lane / 8, a_k = lane % 8;
  const int b_row = threadIdx.x / (BN / 4), b_col = (threadIdx.x % (BN / 4)) * 4;
  const float* a_next = A + static_cast<std::int64_t>(kChecked ? 0 : m0 + a_row) * K + (kChecked ? 0 : a_k);
  const float* b_next = B + static_cast<std::int64_t>(kChecked ? 0 : b_row) * N + (kChecked ? 0 : n0 + b_col);
  const std::int64_t a_step = static_cast<std::int64_t>(Plan::a_rows_apart) * K;  // floats between rows copied
  const std::int64_t b_step = static_cast<std::int64_t>(Plan::b_rows_apart) * N;
  const unsigned a_dst = shared_address(shared) + (a_k * T::a_stride + a_row) * sizeof(float);
  const unsigned b_dst = shared_address(shared) + (BK * T::a_stride + b_row * BN + b_col) * sizeof(float);

  // Issue the copies of tile t (the next one: tiles are copied in order) into stage s.
  auto copy_tile = [&](int s, int t) {
    const unsigned at = a_dst + s * stage_bytes, bt = b_dst + s * stage_bytes;
    if constexpr (!kChecked) {
      const float* a = a_next;
#pragma unroll
      for (int j = 0; j < Plan::a_row_copies; ++j, a += a_step)
#pragma unroll
        for (int h = 0; h < Plan::a_k_copies; ++h)
          copy4_async(at + (j * Plan::a_rows_apart + 8 * h * T::a_stride) * sizeof(float), a + 8 * h);
      const float* b = b_next;
#pragma unroll
      for (int l = 0; l < Plan::b_copies; ++l, b += b_step)
        copy16_async(bt + l * Plan::b_rows_apart * BN * sizeof(float), b);
      a_next += BK;
      b_next += static_cast<std::int64_t>(BK) * N;
    } else {
      // Edges: every element checked, out-of-range ones zero-filled; rows of B need not be 16-byte aligned (N need
      // not be a multiple of 4), so B goes one float at a time too.
      const int p0 = t * BK;
#pragma unroll
      for (int j = 0; j < Plan::a_row_copies; ++j)
#pragma unroll
        for (int h = 0; h < Plan::a_k_copies; ++h) {
          const int gm = m0 + a_row + j * Plan::a_rows_apart, gp = p0 + a_k + 8 * h;
          const bool in = gm < M && gp < K;
          copy4_async(at + (j * Plan::a_rows_apart + 8 * h * T::a_stride) * sizeof(float),
                      in ? A + static_cast<std::int64_t>(gm) * K + gp : A, in);
        }
#pragma unroll
      for (int l = 0; l < Plan::b_copies; ++l)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int gp = p0 + b_row + l * Plan::b_rows_apart, gn = n0 + b_col + c;
          const bool in = gp < K && gn < N;
          copy4_async(bt + (l * Plan::b_rows_apart * BN + c) * sizeof(float),
                      in ? B + static_cast<std::int64_t>(gp) * N + gn : B, in);
        }
    }
  };

  // The arithmetic on a stage and the store of C are blocked_kernel's, line for line. They are a copy rather than
  // helpers shared by both kernels: moving them into a shared helper changed blocked_kernel's register allocation
  // and cost it 5% (44.0 to 41.6 TFLOP/s), on an H100, 2026-11-21.
  const int warp_m = (warp / (BN / WN)) * WM, warp_n = (warp % (BN / WN)) * WN;
  const int lane_m = (lane / T::lanes_n) * 4, lane_n = (lane % T::lanes_n) * 4;
  constexpr int sub_m = TM / 4, sub_n = TN / 4;
  constexpr int sub_m_step = 4 * T::lanes_m, sub_n_step = 4 * T::lanes_n;
  float acc[TM][TN] = {};
  float a_frag[2][TM], b_frag[2][TN];

  auto read_fragments = [&](const float* a_tile, const float* b_tile, int p, int f) {
#pragma unroll
    for (int i = 0; i < sub_m; ++i) {
      const float4 v = *reinterpret_cast<const float4*>(a_tile + p * T::a_stride + warp_m + i * sub_m_step + lane_m);
      a_frag[f][4 * i + 0] = v.x;
      a_frag[f][4 * i + 1] = v.y;
      a_frag[f][4 * i + 2] = v.z;
      a_frag[f][4 * i + 3] = v.w;
    }
#pragma unroll
    for (int j = 0; j < sub_n; ++j) {
      const float4 v = *reinterpret_cast<const float4*>(b_tile + p * BN + warp_n + j * sub_n_step + lane_n);
      b_frag[f][4 * j + 0] = v.x;
      b_frag[f][4 * j + 1] = v.y;
      b_frag[f][4 * j + 2] = v.z;
      b_frag[f][4 * j + 3] = v.w;
    }
  };

  auto compute = [&](const float* a_tile, const float* b_tile) {
    if constexpr (kPrefetch) read_fragments(a_tile, b_tile, 0, 0);
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      const int f = kPrefetch ? p % 2 : 0;
      if constexpr (kPrefetch) {
        if (p + 1 < BK) read_fragments(a_tile, b_tile, p + 1, (p + 1) % 2);
      } else {
        read_fragments(a_tile, b_tile, p, 0);
      }
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a_frag[f][i], b_frag[f][j], acc[i][j]);
    }
  };

  // Prologue: the first kStages - 1 tiles in flight, one commit group each (empty groups past the last tile keep
  // the count of groups equal to the count of tiles, which wait_copies relies on).
#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) copy_tile(s, s);
    commit_copies();
  }
  int read = 0, write = kStages - 1;  // the stage tile t is in, and the stage tile t + kStages - 1 goes to
#pragma unroll 1
  for (int t = 0; t < tiles; ++t) {
    wait_copies<kStages - 2>();  // this thread's copies of tile t have landed...
    __syncthreads();             // ...and everyone's; everyone has also finished tile t - 1, whose stage is `write`
    if (t + kStages - 1 < tiles) copy_tile(write, t + kStages - 1);
    commit_copies();
    const float* a_tile = shared + read * T::shared_floats;
    compute(a_tile, a_tile + BK * T::a_stride);
    read = read + 1 == kStages ? 0 : read + 1;
    write = write + 1 == kStages ? 0 : write + 1;
  }

#pragma unroll
  for (int i = 0; i < sub_m; ++i) {
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const int gm = m0 + warp_m + i * sub_m_step + lane_m + r;
#pragma unroll
      for (int j = 0; j < sub_n; ++j) {
        const int gn = n0 + warp_n + j * sub_n_step + lane_n;
        const float* v = &acc[4 * i + r][4 * j];
        if constexpr (!kChecked) {
          *reinterpret_cast<float4*>(C + static_cast<std::int64_t>(gm) * N + gn) = make_float4(v[0], v[1], v[2], v[3]);
        } else if (gm < M) {
          float* dst = C + static_cast<std::int64_t>(gm) * N;
#pragma unroll
          for (int c = 0; c < 4; ++c)
            if (gn + c < N) dst[gn + c] = v[c];
        }
      }
    }
  }
}

// Pipelined launcher: kStages stages, as launch_blocked otherwise.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kStages, bool kPrefetch, int kGroup,
          int kMinBlocks>
void launch_pipelined(const float* A, const float* B, float* C, int M, int N, int K) {
  using T = Tiling<BM, BN, BK, WM, WN, TM, TN>;
  constexpr int bytes = kStages * T::shared_floats * static_cast<int>(sizeof(float));
  static_assert(bytes <= 227 * 1024, "the stages must fit in an H100 SM's 227 KB of shared memory");
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  const bool exact = M % BM == 0 && N % BN == 0 && K % BK == 0;
  auto kernel = exact ? pipelined_kernel<BM, BN, BK, WM, WN, TM, TN, kStages, kPrefetch, kGroup, kMinBlocks, false>
                      : pipelined_kernel<BM, BN, BK, WM, WN, TM, TN, kStages, kPrefetch, kGroup, kMinBlocks, true>;
  if constexpr (bytes > 48 * 1024)
    (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  kernel<<<grid, T::threads, bytes>>>(A, B, C, M, N, K);
}

}  // namespace

void sgemm_naive(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(16, 16);
  const dim3 grid((N + 15) / 16, (M + 15) / 16);
  naive_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

void sgemm_shared(const float* A, const float* B, float* C, int M, int N, int K) {
  const dim3 block(shared_tile, shared_tile);
  const dim3 grid((N + shared_tile - 1) / shared_tile, (M + shared_tile - 1) / shared_tile);
  shared_kernel<<<grid, block>>>(A, B, C, M, N, K);
}

// 128 x 128 tiles, 256 threads of 8 x 8, one shared-memory stage.
void sgemm_registers(const float* A, const float* B, float* C, int M, int N, int K) {
  launch_blocked<128, 128, 8, 32, 64, 8, 8, Schedule{false, false, 0, 1}>(A, B, C, M, N, K);
}

// The configuration the bench found fastest at 4096 and 2048 on an H100 (bench/gpu/lab7_sgemm_bench.cu): 128 x 256
// x 16 tiles, 256 threads of 16 x 8 (warps of 64 x 64), a 3-stage cp.async pipeline, blocks in groups of 8 block rows.
// 205 registers a thread, so one block (8 warps) per SM: each warp's 128 independent multiply-adds per step keep the
// FP32 pipes as busy as two blocks of smaller tiles did (Nsight: 76% of issue slots, barrier stalls near zero).
void sgemm_best(const float* A, const float* B, float* C, int M, int N, int K) {
  launch_pipelined<128, 256, 16, 64, 64, 16, 8, 3, false, 8, 1>(A, B, C, M, N, K);
}
