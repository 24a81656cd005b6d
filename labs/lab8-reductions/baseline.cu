// baseline.cu: the judge's side of lab 8, linked into the trusted worker only. Three jobs, none of them a
// model solution:
//   - the oracle: each of the student's eight functions is, here, the sum computed on the host in long double
//     (64-bit significand) from the array read back from the device, then rounded to float. Every float is
//     exact in long double and 2^28 additions lose less than 2^-36 of the terms' total magnitude, so the
//     expected value is the true sum to within float rounding: the tolerance only covers the student's error;
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

void host_oracle(const float* in, std::int64_t n, float* out) {
  constexpr std::int64_t slice = std::int64_t{1} << 24;  // 64 MB at a time: no second full copy of the input
  std::vector<float> host(static_cast<std::size_t>(std::min(n, slice)));
  // Four running sums, not one: each long double addition waits for the last (a few cycles), and the judge runs
  // this for every checked call of a timed item, 2^28 elements each. The bound above holds for each sum and for
  // their total alike.
  long double sums[4] = {0.0L, 0.0L, 0.0L, 0.0L};
  for (std::int64_t first = 0; first < n; first += slice) {
    const std::int64_t count = std::min(slice, n - first);
    LABKIT_CUDA_CHECK(cudaMemcpy(host.data(), in + first, static_cast<std::size_t>(count) * sizeof(float), cudaMemcpyDeviceToHost));
    const float* values = host.data();
    std::int64_t i = 0;
    for (; i + 4 <= count; i += 4) {
      sums[0] += values[i];
      sums[1] += values[i + 1];
      sums[2] += values[i + 2];
      sums[3] += values[i + 3];
    }
    for (; i < count; ++i) sums[0] += values[i];
  }
  const float result = static_cast<float>((sums[0] + sums[1]) + (sums[2] + sums[3]));
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
