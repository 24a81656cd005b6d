// lab6_streams_bench.cu: what bounds lab 6 on this machine, and how close the reference pipeline
// (reference/lab6-streams/streams.cu) comes to it. Prints
//   1. the bus: pinned and pageable host-to-device and device-to-host bandwidth of one 1 GiB copy, and both
//      directions at once;
//   2. the cost of creating and destroying 1, 2, 4 and 8 streams;
//   3. for each timed shape of lab.toml (square 16384 x 8192 and tall 2^25 x 4, 1 GiB of A each): the judge's
//      yardsticks (synchronous on pageable and on pinned memory, copies only) and the reference's pipeline for
//      1 to 8 streams and several chunk sizes, each checked against a host computation first (a wrong result is
//      printed WRONG and not timed), then timed as the grader times it (host clock from the call until the device
//      is idle, median of 9), in ms and as a fraction of copy_only's time (the lab's "fraction of the transfer
//      bound").
//
//   nvcc -std=c++20 -O3 -arch=sm_90 -Ilabs/lab6-streams -Igrader/labkit/include -Ibench/gpu \
//        bench/gpu/lab6_streams_bench.cu -o lab6_bench && ./lab6_bench
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_util.cuh"
// The reference is one translation unit; including it gives the benchmark its pipeline with any chunk size.
#include "../../reference/lab6-streams/streams.cu"

namespace {

using bench::DeviceBuffer;

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Median seconds of `reps` calls, each from the call until the device is idle (as the lab 6 harness times).
double host_median(const std::function<void()>& work, int reps = 9) {
  work();  // warm-up
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<double> seconds;
  for (int i = 0; i < reps; ++i) {
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    const double start = now();
    work();
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    seconds.push_back(now() - start);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

// Host buffers of both kinds, filled (every page touched) with the same values.
struct HostBuffers {
  double* pinned = nullptr;
  std::vector<double> pageable;
  std::size_t count = 0;
  explicit HostBuffers(std::size_t n) : pageable(n), count(n) {
    LABKIT_CUDA_CHECK(cudaMallocHost(&pinned, n * sizeof(double)));
  }
  ~HostBuffers() { cudaFreeHost(pinned); }
  void fill(unsigned seed) {
    std::srand(seed);
    for (std::size_t i = 0; i < count; ++i) pinned[i] = pageable[i] = std::rand() / (RAND_MAX / 2.0) - 1.0;
  }
};

void bus() {
  const std::size_t count = std::size_t{1} << 27;  // 1 GiB of doubles
  const double gib = count * 8.0;
  HostBuffers h(count);
  h.fill(1);
  DeviceBuffer<double> d(count), d2(count);
  cudaStream_t in, out;
  LABKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking));
  LABKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&out, cudaStreamNonBlocking));
  auto rate = [&](const char* what, const std::function<void()>& work, double bytes) {
    const double s = host_median(work, 5);
    std::printf("  %-52s %8.2f ms %7.1f GB/s\n", what, s * 1e3, bytes / s / 1e9);
  };
  std::printf("bus, 1 GiB per copy\n");
  rate(
      "pinned host to device", [&] { LABKIT_CUDA_CHECK(cudaMemcpy(d.data(), h.pinned, gib, cudaMemcpyHostToDevice)); },
      gib);
  rate(
      "pinned device to host", [&] { LABKIT_CUDA_CHECK(cudaMemcpy(h.pinned, d.data(), gib, cudaMemcpyDeviceToHost)); },
      gib);
  rate(
      "pageable host to device",
      [&] { LABKIT_CUDA_CHECK(cudaMemcpy(d.data(), h.pageable.data(), gib, cudaMemcpyHostToDevice)); }, gib);
  rate(
      "pageable device to host",
      [&] { LABKIT_CUDA_CHECK(cudaMemcpy(h.pageable.data(), d.data(), gib, cudaMemcpyDeviceToHost)); }, gib);
  rate(
      "pinned, both directions at once (1 GiB in, 0.5 GiB out)",
      [&] {
        LABKIT_CUDA_CHECK(cudaMemcpyAsync(d.data(), h.pinned, gib, cudaMemcpyHostToDevice, in));
        LABKIT_CUDA_CHECK(cudaMemcpyAsync(h.pinned + count / 2, d2.data(), gib / 2, cudaMemcpyDeviceToHost, out));
      },
      1.5 * gib);
  cudaStreamDestroy(in);
  cudaStreamDestroy(out);
}

void stream_creation() {
  std::printf("stream creation and destruction (median of 101, host clock)\n");
  for (int streams : {1, 2, 4, 8}) {
    std::vector<cudaStream_t> s(streams);
    std::vector<double> seconds;
    for (int rep = 0; rep < 101; ++rep) {
      const double start = now();
      for (auto& one : s) LABKIT_CUDA_CHECK(cudaStreamCreate(&one));
      for (auto& one : s) LABKIT_CUDA_CHECK(cudaStreamDestroy(one));
      seconds.push_back(now() - start);
    }
    std::sort(seconds.begin(), seconds.end());
    std::printf("  %d stream(s): %7.1f us\n", streams, seconds[50] * 1e6);
  }
}

void shape(const char* name, std::int64_t m, std::int64_t n) {
  std::printf("%s: %lld x %lld, A %.2f GiB, y %.1f MiB\n", name, static_cast<long long>(m), static_cast<long long>(n),
              m * n * 8.0 / (1 << 30), m * 8.0 / (1 << 20));
  HostBuffers a(static_cast<std::size_t>(m * n)), x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(m));
  a.fill(2);
  x.fill(3);
  std::vector<double> want(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0;
    for (std::int64_t j = 0; j < n; ++j) sum += a.pinned[i * n + j] * x.pinned[j];
    want[static_cast<std::size_t>(i)] = sum;
  }
  DeviceBuffer<double> da(static_cast<std::size_t>(m * n)), dx(static_cast<std::size_t>(n)),
      dy(static_cast<std::size_t>(m));
  const DeviceWorkspace dev{da.data(), dx.data(), dy.data()};
  cudaStream_t in, out;
  LABKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&in, cudaStreamNonBlocking));
  LABKIT_CUDA_CHECK(cudaStreamCreateWithFlags(&out, cudaStreamNonBlocking));
  const double bytes_in = (m * n + n) * 8.0, bytes_out = m * 8.0;
  const double copy_only = host_median([&] {
    LABKIT_CUDA_CHECK(cudaMemcpyAsync(da.data(), a.pinned, bytes_in - n * 8.0, cudaMemcpyHostToDevice, in));
    LABKIT_CUDA_CHECK(cudaMemcpyAsync(dx.data(), x.pinned, n * 8.0, cudaMemcpyHostToDevice, in));
    LABKIT_CUDA_CHECK(cudaMemcpyAsync(y.pinned, dy.data(), bytes_out, cudaMemcpyDeviceToHost, out));
  });
  std::printf("  %-52s %8.2f ms  (%.1f GB/s in, %.1f GB/s out, at once)\n", "copy_only (the transfer bound)",
              copy_only * 1e3, bytes_in / copy_only / 1e9, bytes_out / copy_only / 1e9);

  auto row = [&](const std::string& label, double* y_out, const std::function<void()>& work) {
    std::fill_n(y_out, m, NAN);
    work();
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    for (std::int64_t i = 0; i < m; ++i) {
      const double w = want[static_cast<std::size_t>(i)];
      if (!(std::fabs(y_out[i] - w) <= 1e-9 + 1e-10 * std::fabs(w))) {
        std::printf("  %-52s WRONG at row %lld: %g instead of %g: not timed\n", label.c_str(),
                    static_cast<long long>(i), y_out[i], w);
        return;
      }
    }
    const double s = host_median(work);
    std::printf("  %-52s %8.2f ms  %5.3f of the transfer bound\n", label.c_str(), s * 1e3, copy_only / s);
  };
  row("judge sync_pageable (malloc, cudaMemcpy, kernel)", y.pageable.data(), [&] {
    LABKIT_CUDA_CHECK(cudaMemcpy(da.data(), a.pageable.data(), m * n * 8, cudaMemcpyHostToDevice));
    LABKIT_CUDA_CHECK(cudaMemcpy(dx.data(), x.pageable.data(), n * 8, cudaMemcpyHostToDevice));
    launch_gemv(da.data(), dx.data(), dy.data(), m, n, 0);
    LABKIT_CUDA_CHECK(cudaMemcpy(y.pageable.data(), dy.data(), m * 8, cudaMemcpyDeviceToHost));
  });
  row("reference gemv_sync (pinned)", y.pinned, [&] { gemv_sync(a.pinned, x.pinned, y.pinned, m, n, dev); });
  row("pipeline on PAGEABLE memory, 4 streams, 32 MiB", y.pageable.data(),
      [&] { pipeline(a.pageable.data(), x.pageable.data(), y.pageable.data(), m, n, 4, dev, std::int64_t{32} << 20); });
  for (int streams : {1, 2, 3, 4, 8}) {
    for (int mib : {2, 8, 32, 64}) {
      if (streams == 3 && mib != 32) continue;
      row("pipeline, " + std::to_string(streams) + " stream(s), " + std::to_string(mib) + " MiB chunks", y.pinned,
          [&] { pipeline(a.pinned, x.pinned, y.pinned, m, n, streams, dev, std::int64_t{mib} << 20); });
    }
  }
  for (int streams : {2, 4, 8}) {
    row("pipeline, " + std::to_string(streams) + " streams, one chunk per stream", y.pinned,
        [&] { pipeline(a.pinned, x.pinned, y.pinned, m, n, streams, dev, std::int64_t{1} << 40); });
  }
  row("reference gemv_streams, 4 streams", y.pinned, [&] { gemv_streams(a.pinned, x.pinned, y.pinned, m, n, 4, dev); });
  cudaStreamDestroy(in);
  cudaStreamDestroy(out);
}

}  // namespace

int main() {
  try {
    const auto& p = labkit::cuda::device_properties();
    std::printf("lab 6 streams bench on %s (%d async copy engines)\n", p.name, p.asyncEngineCount);
    bus();
    stream_creation();
    shape("square", 16384, 8192);
    shape("tall", std::int64_t{1} << 25, 4);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab6 bench failed: %s\n", e.what());
    return 1;
  }
  return 0;
}
