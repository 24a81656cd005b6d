// baseline.cu: the judge's side of lab 8, linked into the trusted worker only. Three jobs, none of them a
// model solution:
//   - the oracle: each of the student's eight functions is, here, the sum computed on the host in double from
//     the array read back from the device, pairwise (a tree of halves down to runs of 256), then rounded to
//     float. Every float is exact in double and a pairwise sum of n terms errs by at most about
//     log2(n) * 2^-53 of the terms' total magnitude (2^28 terms in [-1, 1): below 1e-6, against a float
//     rounding of ~1e-3 on a sum of a few thousand), so the expected value is the true sum to within float
//     rounding: the tolerance only covers the student's error;
//   - the baseline (`lab8_judge_baseline`): version 01 of the course, interleaved addressing with a divergent
//     branch, as the skeleton gives it. Every speedup is measured against it; do not tune it;
//   - the professional figure (`lab8_judge_cub`): cub::DeviceReduce::Sum, for the report.
// The two judge-only entry points are weak in the harness, so the candidate (without this file) has neither.
#include <cub/cub.cuh>
#include <labkit/labkit.h>
#include <labkit/cuda.h>

#include <algorithm>
#include <vector>

#include "reductions.h"

namespace {

// The sum of x[0..n) in double, pairwise: both halves summed the same way, down to runs of 256 added in eight
// interleaved running sums (independent additions the compiler may put in vector lanes; the order is fixed, so
// every x86-64 machine gets the same result).
double pairwise_sum(const float* x, std::int64_t n) {
  if (n > 256) {
    const std::int64_t half = n / 2;
    return pairwise_sum(x, half) + pairwise_sum(x + half, n - half);
  }
  double lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int lane = 0; lane < 8; ++lane) lanes[lane] += x[i + lane];
  for (; i < n; ++i) lanes[0] += x[i];
  return ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
}

// The judge runs this for the expected outputs and for every checked call of a timed item (2^28 elements each),
// so it reads the device array through one pinned buffer, 64 MB at a time: a copy into pageable memory goes
// through the driver's own staging, several times slower.
void host_oracle(const float* in, std::int64_t n, float* out) {
  constexpr std::int64_t slice = std::int64_t{1} << 24;
  static float* staging = [] {
    float* buffer = nullptr;
    LABKIT_CUDA_CHECK(cudaMallocHost(&buffer, static_cast<std::size_t>(slice) * sizeof(float)));
    return buffer;
  }();
  double sum = 0;
  for (std::int64_t first = 0; first < n; first += slice) {
    const std::int64_t count = std::min(slice, n - first);
    LABKIT_CUDA_CHECK(cudaMemcpy(staging, in + first, static_cast<std::size_t>(count) * sizeof(float), cudaMemcpyDeviceToHost));
    sum += pairwise_sum(staging, count);
  }
  const float result = static_cast<float>(sum);
  LABKIT_CUDA_CHECK(cudaMemcpy(out, &result, sizeof(float), cudaMemcpyHostToDevice));
}

// Version 01: a block loads its elements into shared memory; in step s, thread t adds sdata[t + s] into
// sdata[t] when t is a multiple of 2s. Thread 0 writes the block's sum.
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

void reduce_interleaved_divergent(const float* in, std::int64_t n, float* out, float*, int) { host_oracle(in, n, out); }
void reduce_interleaved(const float* in, std::int64_t n, float* out, float*, int) { host_oracle(in, n, out); }
void reduce_sequential(const float* in, std::int64_t n, float* out, float*, int) { host_oracle(in, n, out); }
void reduce_first_add(const float* in, std::int64_t n, float* out, float*, int) { host_oracle(in, n, out); }
void reduce_unroll_last_warp(const float* in, std::int64_t n, float* out, float*, int) { host_oracle(in, n, out); }
void reduce_warp_shuffle(const float* in, std::int64_t n, float* out, float*, int) { host_oracle(in, n, out); }
void reduce_multi_element(const float* in, std::int64_t n, float* out, float*, int) { host_oracle(in, n, out); }
void reduce_atomic(const float* in, std::int64_t n, float* out, float*, int) { host_oracle(in, n, out); }

// Pass after pass: n values -> one per block -> ... -> 1, the partials alternating between two halves of the
// scratch space and the last pass writing out[0].
extern "C" void lab8_judge_baseline(const float* in, std::int64_t n, float* out, float* scratch, int block) {
  float* halves[2] = {scratch, scratch + (n + block - 1) / block};
  const float* src = in;
  std::int64_t count = n;
  for (int pass = 0;; ++pass) {
    const std::int64_t blocks = (count + block - 1) / block;
    float* dst = blocks == 1 ? out : halves[pass % 2];
    interleaved_divergent_kernel<<<static_cast<unsigned>(blocks), block, block * sizeof(float)>>>(src, count, dst);
    labkit::cuda::check_launch("the judge's divergent baseline");
    if (blocks == 1) return;
    src = dst;
    count = blocks;
  }
}

// CUB's temporary storage is allocated on the first call (a warm-up call, untimed) and kept.
extern "C" void lab8_judge_cub(const float* in, std::int64_t n, float* out, float*, int) {
  static labkit::cuda::DeviceBuffer<unsigned char> temporary;
  std::size_t bytes = 0;
  LABKIT_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n));
  if (bytes > temporary.size()) temporary.resize(bytes);
  LABKIT_CUDA_CHECK(cub::DeviceReduce::Sum(temporary.data(), bytes, in, out, n));
}
