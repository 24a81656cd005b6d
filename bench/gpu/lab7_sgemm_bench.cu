// lab7_sgemm_bench.cu: how close does the lab 7 reference (reference/lab7-tiled-gemm/sgemm.cu) come to cuBLAS SGEMM
// (true FP32, no TF32), and where do the course's steps stand? For each size it checks every kernel against cuBLAS
// first (a wrong kernel is printed WRONG and never timed), then prints the median of 20 L2-cold calls, timed as the
// grader times them (bench_util.cuh), in TFLOP/s (2 m n k flops per call) and percent of cuBLAS. Every version is
// first checked on 16 edge shapes (any M, N, K: sgemm.h), and is timed only if right on all of them. Last, the 04 best
// and the three fastest others are timed again in 7 rounds interleaved with cuBLAS, at 4096 and 2048: the figures to
// quote as fractions of cuBLAS. The tile configurations below are the candidates sgemm_best was chosen from.
//
//   nvcc -std=c++20 -O3 -arch=sm_90 -Ilabs/lab7-tiled-gemm -Igrader/labkit/include -Ibench/gpu \
//        bench/gpu/lab7_sgemm_bench.cu -lcublas -o lab7_bench && ./lab7_bench [--quick]
//
// --quick: only 4096 and only the course's steps, the reference's best, the previous best (double-buffered) and
//          cuBLAS.
// --only PREFIX: only 4096 and only the versions whose label starts with PREFIX (to run under ncu).
// --edges PREFIX: only the edge shapes of at most 2^30 multiply-adds, checked, not timed, for the versions whose
//                 label starts with PREFIX (to run under compute-sanitizer).
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.cuh"
// The reference is one translation unit; including it gives the benchmark its kernel templates too.
#include "../../reference/lab7-tiled-gemm/sgemm.cu"

namespace {

using bench::DeviceBuffer;
using Launch = void (*)(const float*, const float*, float*, int, int, int);

// Kernels a student is likely to write for steps 2 and 3, to set the tiers by: 16 x 16 shared tiles, and the
// course's 64 x 64 register blocking with 4 x 4 per thread, A kept as it is (not transposed), scalar shared loads.
template <int T>
__global__ void student_shared_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ float as[T][T], bs[T][T];
  const int tx = threadIdx.x, ty = threadIdx.y, row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float sum = 0;
  for (int p0 = 0; p0 < K; p0 += T) {
    as[ty][tx] = (row < M && p0 + tx < K) ? A[row * K + p0 + tx] : 0.0f;
    bs[ty][tx] = (p0 + ty < K && col < N) ? B[(p0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < T; ++p) sum += as[ty][p] * bs[p][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = sum;
}

void student_shared16(const float* A, const float* B, float* C, int M, int N, int K) {
  student_shared_kernel<16><<<dim3((N + 15) / 16, (M + 15) / 16), dim3(16, 16)>>>(A, B, C, M, N, K);
}

__global__ void student_registers_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  constexpr int BM = 64, BN = 64, BK = 16, TM = 4, TN = 4;
  __shared__ float as[BM][BK], bs[BK][BN];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int p0 = 0; p0 < K; p0 += BK) {
    for (int e = tid; e < BM * BK; e += 256) {  // 4 elements of each tile per thread
      const int r = e / BK, c = e % BK;
      as[r][c] = (m0 + r < M && p0 + c < K) ? A[(m0 + r) * K + p0 + c] : 0.0f;
      const int rb = e / BN, cb = e % BN;
      bs[rb][cb] = (p0 + rb < K && n0 + cb < N) ? B[(p0 + rb) * N + n0 + cb] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < BK; ++p) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = as[ty * TM + i][p];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = bs[p][tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j) {
      const int r = m0 + ty * TM + i, c = n0 + tx * TN + j;
      if (r < M && c < N) C[r * N + c] = acc[i][j];
    }
}

void student_registers(const float* A, const float* B, float* C, int M, int N, int K) {
  student_registers_kernel<<<dim3((N + 63) / 64, (M + 63) / 64), dim3(16, 16)>>>(A, B, C, M, N, K);
}

// A candidate for sgemm_best that lost (see bench/gpu/lab6_lab7_results.md): a cp.async pipeline like the
// reference's, but with A copied into shared memory untransposed (rows of BK + 4 floats, 16-byte cp.async like B),
// a thread reading its A values along k, a float4 of 4 k-steps per row. It then holds TM x 4 values of A at once
// (64 registers for TM = 16; 255 registers in all), in exchange for copies that are all 16 bytes. For those reads to
// be conflict-free a thread's TM rows are interleaved (lane group g owns rows g, g + lanes_m, g + 2 lanes_m, ...): the
// 4 or 8 rows a warp reads at once are consecutive, BK + 4 floats apart, which spreads them over distinct banks.
// kWarpPrivate: each warp copies the A rows and B columns it uses into its own stages and waits for its own copies
// only (__syncwarp, no block barrier), at the price of copying shared rows and columns twice.
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kStages, bool kWarpPrivate, int kGroup,
          int kMinBlocks, bool kChecked>
__global__ void __launch_bounds__(Tiling<BM, BN, BK, WM, WN, TM, TN>::threads, kMinBlocks)
    rowa_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                int K) {
  using T = Tiling<BM, BN, BK, WM, WN, TM, TN>;
  static_assert(kStages >= 2, "at least two stages");
  constexpr int a_stride = BK + 4;
  // What one copier (the block, or a warp) copies: CM rows of A, CN columns of B, with `copiers` threads.
  constexpr int CM = kWarpPrivate ? WM : BM, CN = kWarpPrivate ? WN : BN, copiers = kWarpPrivate ? 32 : T::threads;
  constexpr int stage_floats = CM * a_stride + BK * CN;
  constexpr int a_copies = CM * BK / 4 / copiers, b_copies = BK * CN / 4 / copiers;
  static_assert((CM * BK / 4) % copiers == 0 && (BK * CN / 4) % copiers == 0, "equal copies per thread");
  static_assert(copiers % (BK / 4) == 0 && copiers % (CN / 4) == 0, "copy rows a whole number apart");
  constexpr int a_rows_apart = copiers / (BK / 4), b_rows_apart = copiers / (CN / 4);
  extern __shared__ float4 shared_words[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float* shared = reinterpret_cast<float*>(shared_words) + (kWarpPrivate ? warp * kStages * stage_floats : 0);
  constexpr unsigned stage_bytes = stage_floats * sizeof(float);

  int tile_m = blockIdx.y, tile_n = blockIdx.x;
  if constexpr (kGroup > 0) {  // as in the reference's kernels
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    const int per_group = kGroup * gridDim.x;
    const int first = (block / per_group) * kGroup;
    const int rows = min(static_cast<int>(gridDim.y) - first, kGroup);
    tile_m = first + (block % per_group) % rows;
    tile_n = (block % per_group) / rows;
  }
  const int warp_m = (warp / (BN / WN)) * WM, warp_n = (warp % (BN / WN)) * WN;
  const int m0 = tile_m * BM + (kWarpPrivate ? warp_m : 0), n0 = tile_n * BN + (kWarpPrivate ? warp_n : 0);
  const int tiles = (K + BK - 1) / BK;

  const int ct = kWarpPrivate ? lane : threadIdx.x;  // index among the copiers
  const int a_row = ct / (BK / 4), a_col = (ct % (BK / 4)) * 4;
  const int b_row = ct / (CN / 4), b_col = (ct % (CN / 4)) * 4;
  const float* a_next = A + static_cast<std::int64_t>(kChecked ? 0 : m0 + a_row) * K + (kChecked ? 0 : a_col);
  const float* b_next = B + static_cast<std::int64_t>(kChecked ? 0 : b_row) * N + (kChecked ? 0 : n0 + b_col);
  const std::int64_t a_step = static_cast<std::int64_t>(a_rows_apart) * K;
  const std::int64_t b_step = static_cast<std::int64_t>(b_rows_apart) * N;
  const unsigned a_dst = shared_address(shared) + (a_row * a_stride + a_col) * sizeof(float);
  const unsigned b_dst = shared_address(shared) + (CM * a_stride + b_row * CN + b_col) * sizeof(float);

  auto copy_tile = [&](int s, int t) {
    const unsigned at = a_dst + s * stage_bytes, bt = b_dst + s * stage_bytes;
    if constexpr (!kChecked) {
      const float* a = a_next;
#pragma unroll
      for (int l = 0; l < a_copies; ++l, a += a_step) copy16_async(at + l * a_rows_apart * a_stride * sizeof(float), a);
      const float* b = b_next;
#pragma unroll
      for (int l = 0; l < b_copies; ++l, b += b_step) copy16_async(bt + l * b_rows_apart * CN * sizeof(float), b);
      a_next += BK;
      b_next += static_cast<std::int64_t>(BK) * N;
    } else {
      const int p0 = t * BK;
#pragma unroll
      for (int l = 0; l < a_copies; ++l)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int gm = m0 + a_row + l * a_rows_apart, gp = p0 + a_col + c;
          const bool in = gm < M && gp < K;
          copy4_async(at + (l * a_rows_apart * a_stride + c) * sizeof(float),
                      in ? A + static_cast<std::int64_t>(gm) * K + gp : A, in);
        }
#pragma unroll
      for (int l = 0; l < b_copies; ++l)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
          const int gp = p0 + b_row + l * b_rows_apart, gn = n0 + b_col + c;
          const bool in = gp < K && gn < N;
          copy4_async(bt + (l * b_rows_apart * CN + c) * sizeof(float),
                      in ? B + static_cast<std::int64_t>(gp) * N + gn : B, in);
        }
    }
  };

  // The thread's rows: warp_m + lane_g + lanes_m * q (q < TM); its columns: warp_n + 4 lane_n + 4 lanes_n j + c.
  const int lane_g = lane / T::lanes_n, lane_n = (lane % T::lanes_n) * 4;
  const int a_base = ((kWarpPrivate ? 0 : warp_m) + lane_g) * a_stride;
  const int b_base = (kWarpPrivate ? 0 : warp_n) + lane_n;
  constexpr int sub_n = TN / 4, sub_n_step = 4 * T::lanes_n;
  float acc[TM][TN] = {};

  auto compute = [&](const float* a_tile, const float* b_tile) {
#pragma unroll
    for (int kq = 0; kq < BK / 4; ++kq) {
      float a[TM][4];
#pragma unroll
      for (int q = 0; q < TM; ++q) {
        const float4 v = *reinterpret_cast<const float4*>(a_tile + a_base + q * T::lanes_m * a_stride + 4 * kq);
        a[q][0] = v.x;
        a[q][1] = v.y;
        a[q][2] = v.z;
        a[q][3] = v.w;
      }
#pragma unroll
      for (int kk = 0; kk < 4; ++kk) {
        float b[TN];
#pragma unroll
        for (int j = 0; j < sub_n; ++j) {
          const float4 v = *reinterpret_cast<const float4*>(b_tile + (4 * kq + kk) * CN + b_base + j * sub_n_step);
          b[4 * j + 0] = v.x;
          b[4 * j + 1] = v.y;
          b[4 * j + 2] = v.z;
          b[4 * j + 3] = v.w;
        }
#pragma unroll
        for (int q = 0; q < TM; ++q)
#pragma unroll
          for (int j = 0; j < TN; ++j) acc[q][j] = fmaf(a[q][kk], b[j], acc[q][j]);
      }
    }
  };

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < tiles) copy_tile(s, s);
    commit_copies();
  }
  int read = 0, write = kStages - 1;
#pragma unroll 1
  for (int t = 0; t < tiles; ++t) {
    wait_copies<kStages - 2>();
    if constexpr (kWarpPrivate)
      __syncwarp();
    else
      __syncthreads();
    if (t + kStages - 1 < tiles) copy_tile(write, t + kStages - 1);
    commit_copies();
    const float* a_tile = shared + read * stage_floats;
    compute(a_tile, a_tile + CM * a_stride);
    read = read + 1 == kStages ? 0 : read + 1;
    write = write + 1 == kStages ? 0 : write + 1;
  }

  const int row0 = tile_m * BM + warp_m + lane_g, col0 = tile_n * BN + warp_n + lane_n;
#pragma unroll
  for (int q = 0; q < TM; ++q) {
    const int gm = row0 + q * T::lanes_m;
#pragma unroll
    for (int j = 0; j < sub_n; ++j) {
      const int gn = col0 + j * sub_n_step;
      const float* v = &acc[q][4 * j];
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

template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int kStages, bool kWarpPrivate, int kGroup,
          int kMinBlocks>
void launch_rowa(const float* A, const float* B, float* C, int M, int N, int K) {
  using T = Tiling<BM, BN, BK, WM, WN, TM, TN>;
  constexpr int CM = kWarpPrivate ? WM : BM, CN = kWarpPrivate ? WN : BN;
  constexpr int bytes = (kWarpPrivate ? T::warps : 1) * kStages * (CM * (BK + 4) + BK * CN) * 4;
  static_assert(bytes <= 227 * 1024, "the stages must fit in an H100 SM's 227 KB of shared memory");
  const dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
  const bool exact = M % BM == 0 && N % BN == 0 && K % BK == 0;
  auto kernel = exact ? rowa_kernel<BM, BN, BK, WM, WN, TM, TN, kStages, kWarpPrivate, kGroup, kMinBlocks, false>
                      : rowa_kernel<BM, BN, BK, WM, WN, TM, TN, kStages, kWarpPrivate, kGroup, kMinBlocks, true>;
  if constexpr (bytes > 48 * 1024)
    (void)cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  kernel<<<grid, T::threads, bytes>>>(A, B, C, M, N, K);
}

struct Entry {
  const char* label;
  Launch launch;
  bool quick;  // also in --quick
};

// Schedule{double_buffer, prefetch, group, min_blocks}: see the reference.
constexpr Schedule single{false, false, 0, 1};

// Every version timed, in course order; then the candidates sgemm_best was chosen from (bench/gpu/
// lab6_lab7_results.md has their figures):
//   D  register-staged, launch_blocked<BM, BN, BK, WM, WN, TM, TN, Schedule{double_buffer, prefetch, group,
//      min_blocks}>
//   P  cp.async pipeline, A transposed in shared memory: launch_pipelined<BM, BN, BK, WM, WN, TM, TN, stages,
//      prefetch, group, min_blocks>, labelled {stages, prefetch, group, min_blocks}
//   R  cp.async pipeline, A as it is in shared memory: launch_rowa<..., stages, warp_private, group, min_blocks>
// "128t": 128 threads a block (the others have 256).
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int S, bool F, int G, int B>
constexpr Launch P = launch_pipelined<BM, BN, BK, WM, WN, TM, TN, S, F, G, B>;
template <int BM, int BN, int BK, int WM, int WN, int TM, int TN, int S, bool W, int G, int B>
constexpr Launch R = launch_rowa<BM, BN, BK, WM, WN, TM, TN, S, W, G, B>;

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = {
      {"01 naive 16x16 (judge baseline)", sgemm_naive, true},
      {"02 student shared 16x16", student_shared16, true},
      {"02 shared 32x32, 1 per thread (ref)", sgemm_shared, true},
      {"03 student registers 64x64x16, 4x4, scalar", student_registers, true},
      {"03 registers 64x64x16, 4x4, float4, 1 stage", launch_blocked<64, 64, 16, 16, 32, 4, 4, single>, true},
      {"03 registers 128x128x8, 8x8, 1 stage (ref)", sgemm_registers, true},
      {"04 best (ref)", sgemm_best, true},
      {"D 128x128x8  w32x64 8x8  {1,0,8,1} (old best)",
       launch_blocked<128, 128, 8, 32, 64, 8, 8, Schedule{true, false, 8, 1}>, true},
      // 256 threads of 8 x 8, two blocks per SM.
      {"P 128x128x8  w32x64 8x8  {3,0,8,2}", P<128, 128, 8, 32, 64, 8, 8, 3, false, 8, 2>, false},
      {"P 128x128x8  w32x64 8x8  {4,0,8,2}", P<128, 128, 8, 32, 64, 8, 8, 4, false, 8, 2>, false},
      {"P 128x128x8  w32x64 8x8  {4,1,8,2}", P<128, 128, 8, 32, 64, 8, 8, 4, true, 8, 2>, false},
      {"P 128x128x16 w32x64 8x8  {3,0,8,2}", P<128, 128, 16, 32, 64, 8, 8, 3, false, 8, 2>, false},
      {"P 128x128x16 w32x64 8x8  {4,0,8,2}", P<128, 128, 16, 32, 64, 8, 8, 4, false, 8, 2>, false},
      {"P 128x128x16 w64x32 8x8  {3,0,8,2}", P<128, 128, 16, 64, 32, 8, 8, 3, false, 8, 2>, false},
      // 128 threads of 16 x 8 or 8 x 16 (warps of 64 x 64), two blocks per SM.
      {"P 128x128x8  w64x64 16x8 {3,0,8,2} 128t", P<128, 128, 8, 64, 64, 16, 8, 3, false, 8, 2>, false},
      {"P 128x128x8  w64x64 16x8 {4,0,8,2} 128t", P<128, 128, 8, 64, 64, 16, 8, 4, false, 8, 2>, false},
      {"P 128x128x8  w64x64 16x8 {4,0,16,2} 128t", P<128, 128, 8, 64, 64, 16, 8, 4, false, 16, 2>, false},
      {"P 128x128x16 w64x64 16x8 {3,0,8,2} 128t", P<128, 128, 16, 64, 64, 16, 8, 3, false, 8, 2>, false},
      {"P 128x128x16 w64x64 16x8 {4,0,8,2} 128t", P<128, 128, 16, 64, 64, 16, 8, 4, false, 8, 2>, false},
      {"P 128x128x16 w64x64 16x8 {5,0,8,2} 128t", P<128, 128, 16, 64, 64, 16, 8, 5, false, 8, 2>, false},
      {"P 128x128x16 w64x64 16x8 {6,0,8,2} 128t", P<128, 128, 16, 64, 64, 16, 8, 6, false, 8, 2>, false},
      {"P 128x128x32 w64x64 16x8 {3,0,8,2} 128t", P<128, 128, 32, 64, 64, 16, 8, 3, false, 8, 2>, false},
      {"P 128x128x8  w64x64 8x16 {4,0,8,2} 128t", P<128, 128, 8, 64, 64, 8, 16, 4, false, 8, 2>, false},
      // 256 threads of 16 x 8 or 8 x 16, one block per SM.
      {"P 128x256x16 w64x64 8x16 {3,0,8,1}", P<128, 256, 16, 64, 64, 8, 16, 3, false, 8, 1>, false},
      {"P 128x256x16 w64x64 16x8 {2,0,8,1}", P<128, 256, 16, 64, 64, 16, 8, 2, false, 8, 1>, false},
      {"P 128x256x16 w64x64 16x8 {3,0,8,1} (= 04)", P<128, 256, 16, 64, 64, 16, 8, 3, false, 8, 1>, false},
      {"P 128x256x16 w64x64 16x8 {4,0,8,1}", P<128, 256, 16, 64, 64, 16, 8, 4, false, 8, 1>, false},
      {"P 128x256x16 w64x64 16x8 {3,1,8,1}", P<128, 256, 16, 64, 64, 16, 8, 3, true, 8, 1>, false},
      {"P 128x256x16 w64x64 16x8 {3,0,4,1}", P<128, 256, 16, 64, 64, 16, 8, 3, false, 4, 1>, false},
      {"P 128x256x16 w64x64 16x8 {3,0,16,1}", P<128, 256, 16, 64, 64, 16, 8, 3, false, 16, 1>, false},
      {"P 128x256x8  w64x64 16x8 {4,0,8,1}", P<128, 256, 8, 64, 64, 16, 8, 4, false, 8, 1>, false},
      {"P 128x256x8  w64x64 16x8 {5,0,8,1}", P<128, 256, 8, 64, 64, 16, 8, 5, false, 8, 1>, false},
      {"P 128x256x32 w64x64 16x8 {2,0,8,1}", P<128, 256, 32, 64, 64, 16, 8, 2, false, 8, 1>, false},
      {"P 128x256x32 w64x64 16x8 {3,0,8,1}", P<128, 256, 32, 64, 64, 16, 8, 3, false, 8, 1>, false},
      {"P 128x256x16 w128x32 16x8 {2,0,8,1}", P<128, 256, 16, 128, 32, 16, 8, 2, false, 8, 1>, false},
      {"P 128x256x16 w128x32 16x8 {3,0,8,1}", P<128, 256, 16, 128, 32, 16, 8, 3, false, 8, 1>, false},
      {"P 128x256x16 w128x32 16x8 {4,0,8,1}", P<128, 256, 16, 128, 32, 16, 8, 4, false, 8, 1>, false},
      {"P 128x128x16 w128x32 16x8 {4,0,8,2} 128t", P<128, 128, 16, 128, 32, 16, 8, 4, false, 8, 2>, false},
      {"P 256x128x16 w128x32 16x8 {3,0,8,1}", P<256, 128, 16, 128, 32, 16, 8, 3, false, 8, 1>, false},
      {"P 256x128x16 w64x64 16x8 {3,0,8,1}", P<256, 128, 16, 64, 64, 16, 8, 3, false, 8, 1>, false},
      {"P 64x512x16  w64x64 16x8 {3,0,8,1}", P<64, 512, 16, 64, 64, 16, 8, 3, false, 8, 1>, false},
      // A as it is in shared memory, {stages, warp-private copies, group, min_blocks}.
      {"R 128x128x8  w64x64 16x8 {4,0,8,2} 128t", R<128, 128, 8, 64, 64, 16, 8, 4, false, 8, 2>, false},
      {"R 128x128x8  w64x64 16x8 {4,1,8,2} 128t", R<128, 128, 8, 64, 64, 16, 8, 4, true, 8, 2>, false},
      {"R 128x128x16 w64x64 16x8 {3,0,8,2} 128t", R<128, 128, 16, 64, 64, 16, 8, 3, false, 8, 2>, false},
      {"R 128x128x16 w64x64 16x8 {3,1,8,2} 128t", R<128, 128, 16, 64, 64, 16, 8, 3, true, 8, 2>, false},
      {"R 128x128x16 w32x64 8x8  {3,0,8,2}", R<128, 128, 16, 32, 64, 8, 8, 3, false, 8, 2>, false},
      {"R 128x128x16 w32x64 8x8  {3,1,8,2}", R<128, 128, 16, 32, 64, 8, 8, 3, true, 8, 2>, false},
  };
  return table;
}

struct Size {
  int m, n, k;
};

// Shapes every version is checked on (never timed) before anything is timed: the lab's correctness cases (sgemm.h:
// any M, N, K >= 1), including fewer K-tiles than pipeline stages, and rows or columns that are not 16-byte aligned.
const std::vector<Size> edge_sizes = {{7, 5, 3},       {1, 1, 1},         {33, 31, 17},    {127, 129, 9},
                                      {128, 128, 8},   {300, 200, 24},    {1000, 1000, 1000}, {1023, 1023, 1023},
                                      {1024, 1024, 1024}, {256, 256, 1022}, {1, 1000, 1000}, {1000, 1, 1000},
                                      {65, 1, 130},    {1, 4096, 64},     {4096, 1, 64},   {4095, 4095, 4095}};

struct Runner {
  int m, n, k;
  DeviceBuffer<float> A, B, C, expected;
  std::vector<float> want, got;
  cublasHandle_t handle;
  double cublas_seconds = 0;

  Runner(int m_, int n_, int k_, cublasHandle_t h) : m(m_), n(n_), k(k_), handle(h) {
    A.resize(std::size_t(m) * k);
    B.resize(std::size_t(k) * n);
    C.resize(std::size_t(m) * n);
    expected.resize(std::size_t(m) * n);
    bench::fill(A, 71 + m + 3 * n + 7 * k, -1, 1);
    bench::fill(B, 72 + m + 3 * n + 7 * k, -1, 1);
    cublas(expected.data());
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    expected.download(want);
  }

  double tflops(double seconds) const { return 2.0 * m * n * k / seconds / 1e12; }

  void cublas(float* out) {
    const float one = 1, zero = 0;
    if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B.data(), n, A.data(), k, &zero, out, n) !=
        CUBLAS_STATUS_SUCCESS)
      throw labkit::Error("cublasSgemm failed");
  }

  double time_cublas() { return bench::time_median([&] { cublas(C.data()); }, 20); }
  double time(const Entry& e) { return bench::time_median([&] { e.launch(A.data(), B.data(), C.data(), m, n, k); }, 20); }

  // Checks `launch` against cuBLAS with the lab's tolerance (|d| <= 1e-3 + 1e-5 |ref|: both are FP32 sums), on a
  // poisoned C (NaN: an element left unwritten fails). Prints a WRONG line and returns false on failure.
  bool check(const Entry& e) {
    C.poison();
    e.launch(A.data(), B.data(), C.data(), m, n, k);
    labkit::cuda::check_launch(e.label);
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    C.download(got);
    double worst = 0;
    std::size_t where = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double error = std::fabs(double(got[i]) - want[i]) / (1e-3 + 1e-5 * std::fabs(want[i]));
      if (std::isnan(got[i]) || error > worst) {
        worst = std::isnan(got[i]) ? INFINITY : error;
        where = i;
      }
      if (std::isnan(got[i])) break;
    }
    if (worst <= 1) return true;
    std::printf("  %-46s WRONG at %d x %d x %d, (%zu, %zu): got %g, cuBLAS %g\n", e.label, m, n, k, where / n,
                where % n, got[where], want[where]);
    return false;
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  // --only PREFIX: 4096 only, the versions whose label starts with PREFIX (for a profiler run).
  const char* only = argc > 2 && std::strcmp(argv[1], "--only") == 0 ? argv[2] : nullptr;
  // --edges PREFIX: the small edge shapes only, checked, not timed (for compute-sanitizer).
  const bool edges = argc > 2 && std::strcmp(argv[1], "--edges") == 0;
  if (edges) only = argv[2];
  try {
    const auto& p = labkit::cuda::device_properties();
    std::printf("lab 7 SGEMM bench on %s (%d SMs, %.0f MB L2)\n", p.name, p.multiProcessorCount, p.l2CacheSize / 1e6);
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw labkit::Error("cublasCreate failed");
    cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);

    std::vector<const Entry*> chosen;
    for (const auto& e : entries()) {
      if (quick && !e.quick) continue;
      if (only && std::strncmp(e.label, only, std::strlen(only)) != 0) continue;
      chosen.push_back(&e);
    }
    // 1. Correctness on the edge shapes: a version wrong on any of them is never timed.
    std::vector<bool> right(chosen.size(), true);
    if ((!quick && !only) || edges) {
      std::printf("checking %zu versions on %zu edge shapes%s\n", chosen.size(), edge_sizes.size(),
                  edges ? " (those of at most 2^30 multiply-adds)" : "");
      for (const Size& size : edge_sizes) {
        if (edges && double(size.m) * size.n * size.k > double(1 << 30)) continue;
        Runner r(size.m, size.n, size.k, handle);
        for (std::size_t i = 0; i < chosen.size(); ++i)
          if (!r.check(*chosen[i])) right[i] = false;
      }
      if (edges) {
        const auto wrong = std::count(right.begin(), right.end(), false);
        std::printf("%zu versions checked, %zu wrong\n", chosen.size(), static_cast<std::size_t>(wrong));
        cublasDestroy(handle);
        return wrong == 0 ? 0 : 1;
      }
    }

    // 2. The timed shapes: check, then median of 20 L2-cold calls; cuBLAS timed before and after the versions.
    std::vector<Size> sizes = {{4096, 4096, 4096}, {2048, 2048, 2048}, {4097, 769, 513}};
    if (quick || only) sizes.resize(1);
    std::vector<double> at4096(chosen.size(), INFINITY);
    for (const Size& size : sizes) {
      Runner r(size.m, size.n, size.k, handle);
      r.cublas_seconds = r.time_cublas();
      std::printf("%d x %d x %d (m x n x k): cuBLAS SGEMM %.1f us = %.2f TFLOP/s\n", r.m, r.n, r.k,
                  r.cublas_seconds * 1e6, r.tflops(r.cublas_seconds));
      for (std::size_t i = 0; i < chosen.size(); ++i) {
        const Entry& e = *chosen[i];
        if (!right[i] || !r.check(e)) {
          right[i] = false;
          std::printf("  %-46s not timed (wrong)\n", e.label);
          continue;
        }
        const double s = r.time(e);
        if (size.m == 4096) at4096[i] = s;
        std::printf("  %-46s %9.1f us %7.2f TFLOP/s %6.1f%% of cuBLAS\n", e.label, s * 1e6, r.tflops(s),
                    100 * r.cublas_seconds / s);
      }
      const double after = r.time_cublas();
      std::printf("  cuBLAS again, after the versions: %.1f us = %.2f TFLOP/s\n", after * 1e6, r.tflops(after));
    }

    // 3. The 04 best and the three fastest others at 4096, interleaved with cuBLAS: 7 rounds of (cuBLAS, each
    //    version), median of 20 calls each; the median over rounds, and each round's fraction of cuBLAS.
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < chosen.size(); ++i)
      if (std::strncmp(chosen[i]->label, "04 best", 7) == 0) order.push_back(i);
    std::vector<std::size_t> rest;
    for (std::size_t i = 0; i < chosen.size(); ++i)
      if (std::isfinite(at4096[i]) && (order.empty() || i != order[0])) rest.push_back(i);
    std::sort(rest.begin(), rest.end(), [&](std::size_t a, std::size_t b) { return at4096[a] < at4096[b]; });
    for (std::size_t i = 0; i < rest.size() && i < 3; ++i) order.push_back(rest[i]);
    if (only) order.clear();
    for (const Size& size : {Size{4096, 4096, 4096}, Size{2048, 2048, 2048}}) {
      if (order.empty() || (quick && size.m != 4096)) break;
      Runner r(size.m, size.n, size.k, handle);
      constexpr int rounds = 7;
      std::vector<double> cublas_s;
      std::vector<std::vector<double>> s(order.size()), fraction(order.size());
      for (int round = 0; round < rounds; ++round) {
        const double c = r.time_cublas();
        cublas_s.push_back(c);
        for (std::size_t j = 0; j < order.size(); ++j) {
          s[j].push_back(r.time(*chosen[order[j]]));
          fraction[j].push_back(c / s[j].back());
        }
      }
      auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
      };
      std::printf("%d x %d x %d, %d interleaved rounds: cuBLAS %.2f TFLOP/s (rounds %.2f to %.2f)\n", r.m, r.n, r.k,
                  rounds, r.tflops(median(cublas_s)), r.tflops(*std::max_element(cublas_s.begin(), cublas_s.end())),
                  r.tflops(*std::min_element(cublas_s.begin(), cublas_s.end())));
      for (std::size_t j = 0; j < order.size(); ++j)
        std::printf("  %-46s %7.2f TFLOP/s %6.1f%% of cuBLAS (rounds %.1f%% to %.1f%%)\n", chosen[order[j]]->label,
                    r.tflops(median(s[j])), 100 * median(fraction[j]),
                    100 * *std::min_element(fraction[j].begin(), fraction[j].end()),
                    100 * *std::max_element(fraction[j].begin(), fraction[j].end()));
    }
    cublasDestroy(handle);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab7 bench failed: %s\n", e.what());
    return 1;
  }
  return 0;
}
