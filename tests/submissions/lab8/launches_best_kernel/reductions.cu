// Threat (issue 34): no version calls another, but 03 launches 07's kernel (grid-stride, float4, shuffles) from its
// own host function, and 06 launches 04's kernel, which shuffles nothing. The rest is the reference. Expected
// (tests/e2e/e2e_steps.py, with or without a GPU): 03 and 06 not_this_step, from the PTX of the kernels each can
// launch ("... uses warp shuffles, which this step must not"; "... uses warp shuffles (__shfl_*_sync), which this
// step requires"); 01, 02, 04, 05, 07 and 08 keep their points.
// reductions.cu (reference): lab 8's hidden solution. Never shipped to students.
//
// The classic sequence of parallel sums, one section per version, in course order. Every section opens with
// the version's idea in one line; the eight entry points at the end of the file are the only globals.
//
//   01 interleaved, divergent    t % (2s) == 0 does the adds: every warp stays busy, mostly doing nothing
//   02 interleaved               thread t works on 2 s t: idle warps retire, but the stride causes bank conflicts
//   03 sequential addressing     t adds t + s for s = block/2 .. 1: conflict-free, busy threads contiguous
//   04 first add during load     each thread adds two elements while loading: half the blocks, no idle first step
//   05 unrolled last warp        the last six steps without __syncthreads (with __syncwarp: see below)
//   06 warp shuffle              registers instead of shared memory within a warp
//   07 several elements/thread   one wave of blocks, a grid-stride loop of 16-byte loads, then one small pass
//   08 one atomic per block      07's kernel adding each block's sum into out[0]: a single reduction launch
//
// 01 to 06 need a pass per level of the tree of blocks (multipass below); 07 and 08 read the input once with
// enough loads in flight to keep HBM busy, and reach about CUB's bandwidth (bench/gpu/lab8_reduction_bench.cu).
#include <cstdint>

#include "reductions.h"

namespace {

constexpr unsigned full_mask = 0xffffffffu;

// Runs `launch(src, count, dst, blocks)` pass after pass until one value is left in out[0]: the partial sums
// alternate between two halves of the scratch space. `per_block` is how many inputs one block consumes.
template <class Launch>
void multipass(const float* in, std::int64_t n, float* out, float* scratch, std::int64_t per_block, Launch launch) {
  float* halves[2] = {scratch, scratch + (n + per_block - 1) / per_block};
  const float* src = in;
  std::int64_t count = n;
  for (int pass = 0;; ++pass) {
    const std::int64_t blocks = (count + per_block - 1) / per_block;
    float* dst = blocks == 1 ? out : halves[pass % 2];
    launch(src, count, dst, static_cast<unsigned>(blocks));
    if (blocks == 1) return;
    src = dst;
    count = blocks;
  }
}

// ---- 01 interleaved addressing, divergent branch ------------------------------------------------------------
__global__ void interleaved_divergent_kernel(const float* in, std::int64_t n, float* out) {
  extern __shared__ float sdata[];
  const unsigned t = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + t;
  sdata[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) sdata[t] += sdata[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

// ---- 02 interleaved addressing, no divergence: the first blockDim / 2s threads work -------------------------
__global__ void interleaved_kernel(const float* in, std::int64_t n, float* out) {
  extern __shared__ float sdata[];
  const unsigned t = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + t;
  sdata[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * t;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

// ---- 03 sequential addressing: halve the active range, consecutive threads on consecutive words -------------
__global__ void sequential_kernel(const float* in, std::int64_t n, float* out) {
  extern __shared__ float sdata[];
  const unsigned t = threadIdx.x;
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + t;
  sdata[t] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

// ---- 04 first add during load: a block consumes 2 * blockDim elements ---------------------------------------
__device__ __forceinline__ float load_pair(const float* in, std::int64_t n) {
  const std::int64_t i = blockIdx.x * 2 * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  if (i + blockDim.x < n) v += in[i + blockDim.x];
  return v;
}

__global__ void first_add_kernel(const float* in, std::int64_t n, float* out) {
  extern __shared__ float sdata[];
  const unsigned t = threadIdx.x;
  sdata[t] = load_pair(in, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

// ---- 05 last warp unrolled -------------------------------------------------------------------------------------
// Once 64 values are left, warp 0 finishes alone, without __syncthreads. The classic version reads and writes
// sdata[t] through a volatile pointer and relies on the warp running in lockstep; since Volta it does not
// (independent thread scheduling), and lane t could read sdata[t + 16] after lane t + 16 has already updated
// it. Each step below therefore keeps the running value in a register and separates the shared-memory write
// from the next read with __syncwarp().
__global__ void unroll_last_warp_kernel(const float* in, std::int64_t n, float* out) {
  extern __shared__ float sdata[];
  const unsigned t = threadIdx.x;
  sdata[t] = load_pair(in, n);
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 32; s >>= 1) {  // blockDim >= 64 (reductions.h)
    if (t < s) sdata[t] += sdata[t + s];
    __syncthreads();
  }
  if (t < 32) {
    float v = sdata[t] + sdata[t + 32];
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
      __syncwarp();
      sdata[t] = v;
      __syncwarp();
      v += sdata[t + offset];
    }
    if (t == 0) out[blockIdx.x] = v;
  }
}

// ---- 06 warp shuffles: one value per warp through shared memory ---------------------------------------------
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(full_mask, v, offset);
  return v;  // complete in lane 0
}

// The sum over the block, valid in thread 0. Every thread of the block must call it.
__device__ __forceinline__ float block_sum(float v) {
  __shared__ float warp_sums[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  v = warp_sum(v);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  if (warp == 0) v = warp_sum(lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f);
  return v;
}

__global__ void warp_shuffle_kernel(const float* in, std::int64_t n, float* out) {
  const float v = block_sum(load_pair(in, n));
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// ---- 07 / 08 several elements per thread -------------------------------------------------------------------
// Each thread walks the array with a grid-wide stride, four independent float4 loads per step (64 bytes in
// flight per thread), marked evict-first since nothing is read twice. The n % 4 tail goes to the first threads.
template <bool ATOMIC>
__global__ void multi_element_kernel(const float* __restrict__ in, std::int64_t n, float* __restrict__ out) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  const std::int64_t vectors = n / 4;
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::int64_t v = first;
  for (; v + 3 * stride < vectors; v += 4 * stride) {
    const float4 a = __ldcs(in4 + v), b = __ldcs(in4 + v + stride), c = __ldcs(in4 + v + 2 * stride),
                 d = __ldcs(in4 + v + 3 * stride);
    s0 += (a.x + a.y) + (a.z + a.w);
    s1 += (b.x + b.y) + (b.z + b.w);
    s2 += (c.x + c.y) + (c.z + c.w);
    s3 += (d.x + d.y) + (d.z + d.w);
  }
  for (; v < vectors; v += stride) {
    const float4 a = __ldcs(in4 + v);
    s0 += (a.x + a.y) + (a.z + a.w);
  }
  if (first < n % 4) s1 += in[4 * vectors + first];
  const float total = block_sum((s0 + s1) + (s2 + s3));
  if (threadIdx.x == 0) {
    if constexpr (ATOMIC) {
      atomicAdd(out, total);
    } else {
      out[blockIdx.x] = total;
    }
  }
}

// One wave: as many blocks as the GPU holds at once (2048 threads per SM on Hopper), fewer for small n.
unsigned wave_blocks(std::int64_t n, int block) {
  static const int sms = [] {
    int device = 0, count = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device);
    return count > 0 ? count : 132;
  }();
  const std::int64_t wave = static_cast<std::int64_t>(sms) * (2048 / block);
  const std::int64_t needed = (n / 4 + block - 1) / block;  // enough for one float4 per thread
  return static_cast<unsigned>(needed < 1 ? 1 : needed < wave ? needed : wave);
}

}  // namespace

void reduce_interleaved_divergent(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  multipass(in, n, out, scratch, block, [block](const float* src, std::int64_t count, float* dst, unsigned blocks) {
    interleaved_divergent_kernel<<<blocks, block, block * sizeof(float)>>>(src, count, dst);
  });
}

void reduce_interleaved(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  multipass(in, n, out, scratch, block, [block](const float* src, std::int64_t count, float* dst, unsigned blocks) {
    interleaved_kernel<<<blocks, block, block * sizeof(float)>>>(src, count, dst);
  });
}

void reduce_sequential(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  multipass(in, n, out, scratch, block, [block](const float* src, std::int64_t count, float* dst, unsigned blocks) {
    multi_element_kernel<false><<<blocks, block>>>(src, count, dst);
  });
}

void reduce_first_add(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  multipass(in, n, out, scratch, 2 * block, [block](const float* src, std::int64_t count, float* dst, unsigned blocks) {
    first_add_kernel<<<blocks, block, block * sizeof(float)>>>(src, count, dst);
  });
}

void reduce_unroll_last_warp(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  multipass(in, n, out, scratch, 2 * block, [block](const float* src, std::int64_t count, float* dst, unsigned blocks) {
    unroll_last_warp_kernel<<<blocks, block, block * sizeof(float)>>>(src, count, dst);
  });
}

void reduce_warp_shuffle(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  multipass(in, n, out, scratch, 2 * block, [block](const float* src, std::int64_t count, float* dst, unsigned blocks) {
    first_add_kernel<<<blocks, block, block * sizeof(float)>>>(src, count, dst);
  });
}

// Pass 1 leaves one partial per block (at most one wave of them) in scratch; pass 2 is a single block.
// Both inputs are cudaMalloc'ed (256-byte aligned), as float4 loads need.
void reduce_multi_element(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  const unsigned blocks = wave_blocks(n, block);
  if (blocks == 1) {
    multi_element_kernel<false><<<1, block>>>(in, n, out);
    return;
  }
  multi_element_kernel<false><<<blocks, block>>>(in, n, scratch);
  multi_element_kernel<false><<<1, block>>>(scratch, blocks, out);
}

void reduce_atomic(const float* in, std::int64_t n, float* out, float*, int block) {
  cudaMemsetAsync(out, 0, sizeof(float));
  multi_element_kernel<true><<<wave_blocks(n, block), block>>>(in, n, out);
}
