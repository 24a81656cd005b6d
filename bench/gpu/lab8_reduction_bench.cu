// lab8_reduction_bench.cu: how fast is each version of the lab 8 reference (reference/lab8-reductions/reductions.cu)
// next to cub::DeviceReduce::Sum, and does the best one reach 97% of CUB? At n = 2^28 floats (1 GB) it checks
// every version against the exact sum first (a wrong version is never timed), then prints the median of 20
// L2-cold calls, timed as the grader times them (bench_util.cuh): microseconds, GB/s (4 n bytes per call),
// percent of the device-to-device copy bandwidth and of CUB, and the speedup over version 01.
//
//   nvcc -std=c++20 -O3 -arch=sm_90 -Ilabs/lab8-reductions -Igrader/labkit/include -Ibench/gpu \
//        bench/gpu/lab8_reduction_bench.cu -o lab8_bench && ./lab8_bench [--explore]
//
// --explore also times versions 07 and 08 with other block sizes and grid sizes.
#include <cub/cub.cuh>

#include <cmath>
#include <cstring>
#include <string>

#include "bench_util.cuh"
#include "../../reference/lab8-reductions/reductions.cu"

namespace {

using bench::DeviceBuffer;
using Reduce = void(const float*, std::int64_t, float*, float*, int);

struct Version {
  const char* name;
  Reduce* function;
};

const Version versions[] = {
    {"01 interleaved, divergent", reduce_interleaved_divergent},
    {"02 interleaved", reduce_interleaved},
    {"03 sequential addressing", reduce_sequential},
    {"04 first add during load", reduce_first_add},
    {"05 unrolled last warp", reduce_unroll_last_warp},
    {"06 warp shuffle", reduce_warp_shuffle},
    {"07 several elements per thread", reduce_multi_element},
    {"08 block sum, one atomic", reduce_atomic},
};

}  // namespace

int main(int argc, char** argv) {
  const bool explore = argc > 1 && std::strcmp(argv[1], "--explore") == 0;
  try {
    const auto& p = labkit::cuda::device_properties();
    const double copy = bench::copy_gbps();
    const std::int64_t n = std::int64_t{1} << 28;
    DeviceBuffer<float> in(static_cast<std::size_t>(n)), out(1), scratch(static_cast<std::size_t>(reduction_scratch_floats(n)));
    bench::fill(in, 31);
    std::vector<float> host;
    in.download(host);
    long double exact = 0;
    for (float v : host) exact += v;
    std::printf("lab8 reductions on %s (%d SMs), n = 2^28 floats, blocks of 256: copy %.0f GB/s, exact sum %.4Lf\n",
                p.name, p.multiProcessorCount, copy, exact);

    DeviceBuffer<unsigned char> cub_temp;
    auto cub_sum = [&] {
      std::size_t bytes = 0;
      LABKIT_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, bytes, in.data(), out.data(), n));
      if (bytes > cub_temp.size()) cub_temp.resize(bytes);
      LABKIT_CUDA_CHECK(cub::DeviceReduce::Sum(cub_temp.data(), bytes, in.data(), out.data(), n));
    };

    double cub_gbps = 0, first_seconds = 0;
    auto row = [&](const std::string& label, auto work, bench::EndMark mark = bench::EndMark::legacy_stream) {
      out.poison();
      scratch.poison();
      work();
      labkit::cuda::check_launch(label);
      LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<float> got;
      out.download(got);
      const double error = std::fabs(static_cast<double>(got[0]) - static_cast<double>(exact));
      if (!(error < 0.6)) {
        std::printf("  %-44s WRONG (%.4f, off by %.3g): not timed\n", label.c_str(), got[0], error);
        return;
      }
      const double s = bench::time_median(work, 20, mark);
      const double gbps = 4.0 * n / s / 1e9;
      if (cub_gbps == 0) cub_gbps = gbps;
      if (first_seconds == 0 && label.rfind("01", 0) == 0) first_seconds = s;
      std::printf("  %-44s %9.1f us %7.0f GB/s %6.1f%% of copy %6.1f%% of CUB", label.c_str(), s * 1e6, gbps,
                  100 * gbps / copy, 100 * gbps / cub_gbps);
      if (first_seconds > 0) std::printf("  %5.2fx over 01", first_seconds / s);
      std::printf("  (error %.2g)\n", error);
    };

    row("cub::DeviceReduce::Sum", cub_sum);
    row("cub::DeviceReduce::Sum, end after device sync", cub_sum, bench::EndMark::after_device_sync);
    for (const auto& v : versions)
      row(v.name, [&] { v.function(in.data(), n, out.data(), scratch.data(), 256); });
    row("07, end after device sync", [&] { reduce_multi_element(in.data(), n, out.data(), scratch.data(), 256); },
        bench::EndMark::after_device_sync);
    if (explore) {
      for (int block : {128, 512, 1024}) {
        row("07 blocks of " + std::to_string(block), [&] { reduce_multi_element(in.data(), n, out.data(), scratch.data(), block); });
        row("08 blocks of " + std::to_string(block), [&] { reduce_atomic(in.data(), n, out.data(), scratch.data(), block); });
      }
      for (int waves : {2, 4}) {
        const unsigned blocks = waves * wave_blocks(n, 256);
        row("08 blocks of 256, " + std::to_string(waves) + " waves", [&] {
          cudaMemsetAsync(out.data(), 0, sizeof(float));
          multi_element_kernel<true><<<blocks, 256>>>(in.data(), n, out.data());
        });
      }
      for (int block : {128, 512}) {
        row("01 blocks of " + std::to_string(block), [&] { reduce_interleaved_divergent(in.data(), n, out.data(), scratch.data(), block); });
        row("04 blocks of " + std::to_string(block), [&] { reduce_first_add(in.data(), n, out.data(), scratch.data(), block); });
        row("06 blocks of " + std::to_string(block), [&] { reduce_warp_shuffle(in.data(), n, out.data(), scratch.data(), block); });
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab8_reduction_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
