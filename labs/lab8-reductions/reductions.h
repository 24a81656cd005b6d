// reductions.h: the interface of lab 8 (parallel reduction: the sum of a float array on the GPU). The harness
// calls these eight functions and nothing else; your reductions.cu defines them. Do not change this file: the
// grader uses its own copy.
//
// Every function writes the sum of in[0] + in[1] + ... + in[n-1] to out[0]. They differ in HOW, each one a
// step of the classic sequence (see the handout's table); the grader checks each on its own.
//
// Common rules for all eight:
//   - in, out and scratch are DEVICE pointers (cudaMalloc'ed by the harness). in holds n floats (n >= 1, any
//     value: 1, 33, 1000, 2^20 + 7, 2^28); out holds one float; scratch holds reduction_scratch_floats(n)
//     floats, yours to use for partial sums between passes.
//   - out[0] and every element of scratch hold NaN when you are called: write before you read. (That is also
//     why the atomic version must set out[0] to zero first.)
//   - block is the number of threads per block to launch the block-level kernels with: a power of two from
//     64 to 1024. The tests use several; the performance items use 256. Every version must be correct for
//     every such block size and every n.
//   - Launch on the default stream (<<<grid, block>>> without a stream argument, cudaMemsetAsync without one)
//     and return without synchronising: the harness waits for the GPU and times the call with CUDA events.
//     Do not create streams (the grader refuses code that calls cudaStreamCreate*).
//   - A kernel reduces each block's elements to one partial sum; a whole array needs more than one pass (or
//     a last step that adds the partials). Loop on the host: n values -> one per block -> ... -> 1.
#pragma once

#include <cstdint>

// Floats of scratch space for an array of n floats: one partial sum per 32 input elements and then some,
// enough for every pass of a block-per-partial scheme with blocks of 64 threads or more.
inline constexpr std::int64_t reduction_scratch_floats(std::int64_t n) { return n / 32 + 1024; }

// 01: interleaved addressing with a divergent branch. In step s = 1, 2, 4, ... thread t adds
// sdata[t + s] into sdata[t] if t % (2s) == 0. The course's first version (given in the skeleton).
void reduce_interleaved_divergent(const float* in, std::int64_t n, float* out, float* scratch, int block);

// 02: interleaved addressing, no divergence: in step s, thread t works on index 2 * s * t, so the busy
// threads are the first ones (whole warps idle instead of half-busy warps). Shared memory bank conflicts appear.
void reduce_interleaved(const float* in, std::int64_t n, float* out, float* scratch, int block);

// 03: sequential addressing: s = block/2, block/4, ..., 1 and thread t < s adds sdata[t + s] into sdata[t].
// Consecutive threads touch consecutive words: no bank conflicts.
void reduce_sequential(const float* in, std::int64_t n, float* out, float* scratch, int block);

// 04: first add during load: each block takes 2 * block elements, and each thread adds two of them while
// loading into shared memory, so no thread is idle in the first step. Half as many blocks.
void reduce_first_add(const float* in, std::int64_t n, float* out, float* scratch, int block);

// 05: 04 plus the last warp unrolled: once s <= 32 only one warp works, which needs no __syncthreads; the
// last six steps are written out. (Since Volta, threads of a warp are not in lockstep: a warp-synchronous
// step still needs __syncwarp() between reading and writing. The handout shows how.)
void reduce_unroll_last_warp(const float* in, std::int64_t n, float* out, float* scratch, int block);

// 06: warp shuffles: each warp reduces its 32 values in registers with __shfl_down_sync; only one value per
// warp goes through shared memory.
void reduce_warp_shuffle(const float* in, std::int64_t n, float* out, float* scratch, int block);

// 07: several elements per thread: a grid of just enough blocks to fill the GPU, each thread summing many
// elements (a grid-stride loop, wide loads) before the block reduction. Two launches in all.
void reduce_multi_element(const float* in, std::int64_t n, float* out, float* scratch, int block);

// 08: as 07, but each block adds its partial sum straight into out[0] with one atomicAdd: one reduction
// kernel and no second pass (out[0] must be zeroed first, e.g. cudaMemsetAsync).
void reduce_atomic(const float* in, std::int64_t n, float* out, float* scratch, int block);
