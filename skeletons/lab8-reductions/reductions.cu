// reductions.cu: your solution to lab 8 (parallel reduction on the GPU). The handout is
// labs/lab8-reductions/README.md; the rules every function must follow are in reductions.h.
//
// As given, version 01 is the course's first kernel, and versions 02 to 08 call it: correct, but the grader
// checks that each version is the one its name says (lab.toml [steps]: its own kernels, with what the version
// teaches), so until you write them 02 to 08 earn nothing (verdict not_this_step). Replace each with the version
// its TODO describes, one at a time, and watch the report's GB/s after each step.
//
//   grader lab8 --quick     correctness only
//   grader lab8             correctness, then the timed items and your score (needs an NVIDIA GPU)
#include "reductions.h"

namespace {  // kernels and helpers: keep them in here, so only the eight functions of reductions.h are global

// Runs `launch(src, count, dst, blocks)` pass after pass until one value is left in out[0]. Each pass turns
// `count` values into one partial sum per block; the partials alternate between two halves of the scratch
// space (a pass must not overwrite what it reads), and the last pass (a single block) writes out[0].
// `per_block` is how many input values one block consumes: blockDim for 01-03, 2 * blockDim from 04 on.
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

// 01: each block loads blockDim elements into shared memory (0 past the end), then in step s = 1, 2, 4, ...
// thread t adds sdata[t + s] into sdata[t] when t % (2s) == 0. Thread 0 writes the block's sum.
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

}  // namespace

// Given: version 01, the yardstick of every speedup in the report.
void reduce_interleaved_divergent(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  multipass(in, n, out, scratch, block, [block](const float* src, std::int64_t count, float* dst, unsigned blocks) {
    interleaved_divergent_kernel<<<blocks, block, block * sizeof(float)>>>(src, count, dst);
  });
}

// TODO(02): same loads and passes; in step s let thread t work on index = 2 * s * t (if index < blockDim).
void reduce_interleaved(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  reduce_interleaved_divergent(in, n, out, scratch, block);
}

// TODO(03): s = blockDim / 2, blockDim / 4, ..., 1; thread t < s adds sdata[t + s] into sdata[t].
void reduce_sequential(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  reduce_interleaved_divergent(in, n, out, scratch, block);
}

// TODO(04): a block consumes 2 * blockDim elements: thread t loads in[i] + in[i + blockDim] (each checked
// against n). Half as many blocks: per_block = 2 * block in multipass.
void reduce_first_add(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  reduce_interleaved_divergent(in, n, out, scratch, block);
}

// TODO(05): 04, with the loop stopping at s > 32 and warp 0 doing the last six steps without __syncthreads.
// Read the handout's "The last warp" first: the textbook version is a data race on current GPUs.
void reduce_unroll_last_warp(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  reduce_interleaved_divergent(in, n, out, scratch, block);
}

// TODO(06): 04's loads, then __shfl_down_sync within each warp, one value per warp in shared memory, and the
// first warp shuffles those.
void reduce_warp_shuffle(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  reduce_interleaved_divergent(in, n, out, scratch, block);
}

// TODO(07): launch only as many blocks as the GPU holds at once; each thread adds up many elements with a
// grid-stride loop (float4 loads: `in` is 16-byte aligned; mind the n % 4 tail), then 06's block reduction
// writes one partial per block; a second launch of one block adds the partials.
void reduce_multi_element(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  reduce_interleaved_divergent(in, n, out, scratch, block);
}

// TODO(08): 07's kernel, but thread 0 of each block does atomicAdd(out, block_sum); zero out[0] first
// (cudaMemsetAsync(out, 0, sizeof(float))). No second pass.
void reduce_atomic(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  reduce_interleaved_divergent(in, n, out, scratch, block);
}
