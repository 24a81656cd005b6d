// bench_util.cuh: what the GPU benchmarks share. Timing follows the lab kit (labkit/cuda.h) exactly, so a
// benchmark's figure is what the grader would measure: L2 flushed before each trial, an event before the call
// and one after it on the legacy default stream, the median of the trials.
#pragma once

#include <labkit/labkit.h>
#include <labkit/cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace bench {

using labkit::cuda::DeviceBuffer;

// Values in [lo, hi) from a per-element hash: no host transfer, never zeros.
template <class T>
__global__ void fill_random(T* data, std::size_t count, std::uint32_t seed, double lo, double hi) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9e3779b1u ^ seed ^ static_cast<std::uint32_t>(i >> 32) * 0x7feb352du;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    data[i] = static_cast<T>(lo + (hi - lo) * (static_cast<double>(h) / 4294967296.0));
  }
}

template <class T>
void fill(DeviceBuffer<T>& buffer, std::uint32_t seed, double lo = -1.0, double hi = 1.0) {
  fill_random<T><<<1024, 256>>>(buffer.data(), buffer.size(), seed, lo, hi);
  labkit::cuda::check_launch("fill_random");
}

enum class EndMark { legacy_stream, after_device_sync };

// Median seconds of `reps` calls of `work`, each after an L2 flush, as labkit::CudaProblem::time_once does.
template <class Work>
double time_median(Work work, int reps = 20, EndMark mark = EndMark::legacy_stream) {
  static labkit::cuda::L2Flusher flusher;
  labkit::cuda::Event start, stop;
  for (int i = 0; i < 2; ++i) work();  // warm-up: module load, handles, first-touch
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> seconds;
  for (int i = 0; i < reps; ++i) {
    flusher.flush();
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    start.record();
    work();
    if (mark == EndMark::after_device_sync) LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    stop.record();
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    seconds.push_back(labkit::cuda::elapsed_ms(start, stop) * 1e-3);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// Device-to-device copy bandwidth, bytes read + written per second, as `grader calibrate` counts it.
inline double copy_gbps() {
  const std::size_t bytes = std::size_t{1} << 30;
  DeviceBuffer<float> a(bytes / 4), b(bytes / 4);
  fill(a, 11);
  fill(b, 12);
  const double s = time_median([&] {
    LABKIT_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, cudaStreamLegacy));
  });
  return 2.0 * bytes / s / 1e9;
}

}  // namespace bench
