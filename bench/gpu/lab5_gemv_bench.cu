// lab5_gemv_bench.cu: is the lab 5 reference (reference/lab5-gemv-warps/gemv.cu) at least as fast as cuBLAS dgemv
// on every graded shape, and where do the course's kernels stand? For each shape it checks every kernel against
// cuBLAS first (a wrong kernel is never timed), then prints the median of 20 L2-cold calls, timed as the grader
// times them (bench_util.cuh), in microseconds, GB/s (8 (mn + m + n) bytes per call) and percent of the
// device-to-device copy bandwidth.
//
//   nvcc -std=c++20 -O3 -arch=sm_90 -Ilabs/lab5-gemv-warps -Igrader/labkit/include -Ibench/gpu \
//        bench/gpu/lab5_gemv_bench.cu -lcublas -o lab5_bench && ./lab5_bench [--explore]
//
// --explore also times the launch shapes gemv_best chooses among (how choose_config() was set).
#include <cublas_v2.h>

#include <cmath>
#include <cstring>
#include <string>

#include "bench_util.cuh"
// The reference is one translation unit; including it gives the benchmark its internal launchers too.
#include "../../reference/lab5-gemv-warps/gemv.cu"

namespace {

using bench::DeviceBuffer;

// The judge's baseline (labs/lab5-gemv-warps/baseline.cu): one thread per row, one running sum.
__global__ void course_thread_per_row(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n) {
  const std::int64_t row = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (row >= m) return;
  double sum = 0.0;
  for (std::int64_t j = 0; j < n; ++j) sum += A[row * n + j] * x[j];
  y[row] = sum;
}

struct Shape {
  const char* name;
  std::int64_t m, n;
};

struct Runner {
  std::int64_t m, n;
  DeviceBuffer<double> A, x, y, scratch;
  std::vector<double> expected, got;
  double copy_gbps;
  cublasHandle_t handle;

  void cublas() {
    const double one = 1, zero = 0;
    if (cublasDgemv_64(handle, CUBLAS_OP_T, n, m, &one, A.data(), n, x.data(), 1, &zero, y.data(), 1) != CUBLAS_STATUS_SUCCESS)
      throw labkit::Error("cublasDgemv_64 failed");
  }

  // Checks `work` against cuBLAS, then times it.
  template <class Work>
  void row(const std::string& label, Work work, bench::EndMark mark = bench::EndMark::legacy_stream) {
    y.poison();
    work();
    labkit::cuda::check_launch(label);
    LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
    y.download(got);
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      // The lab's tolerance (lab.toml): |got - expected| <= 1e-9 + 1e-10 |expected|, in units of it.
      const double error = std::fabs(got[i] - expected[i]) / (1e-9 + 1e-10 * std::fabs(expected[i]));
      worst = std::isnan(got[i]) ? INFINITY : std::max(worst, error);
    }
    if (!(worst <= 1)) {
      std::printf("  %-44s WRONG (worst error %.2g times the tolerance): not timed\n", label.c_str(), worst);
      return;
    }
    const double s = bench::time_median(work, 20, mark);
    const double gbps = 8.0 * (m * n + m + n) / s / 1e9;
    std::printf("  %-44s %10.1f us %8.0f GB/s %6.1f%%\n", label.c_str(), s * 1e6, gbps, 100 * gbps / copy_gbps);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bool explore = argc > 1 && std::strcmp(argv[1], "--explore") == 0;
  try {
    const auto& p = labkit::cuda::device_properties();
    const double copy = bench::copy_gbps();
    std::printf("lab5 gemv on %s (%d SMs): device-to-device copy %.0f GB/s (read + write)\n", p.name,
                p.multiProcessorCount, copy);
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) throw labkit::Error("cublasCreate failed");

    const Shape shapes[] = {{"square 1000", 1000, 1000},          {"square 10000", 10000, 10000},
                            {"square 20000", 20000, 20000},       {"wide 10 x 1,000,000", 10, 1000000},
                            {"tall 1,000,000 x 10", 1000000, 10}};
    for (const auto& shape : shapes) {
      Runner r{shape.m, shape.n};
      r.copy_gbps = copy;
      r.handle = handle;
      r.A.resize(static_cast<std::size_t>(r.m * r.n));
      r.x.resize(static_cast<std::size_t>(r.n));
      r.y.resize(static_cast<std::size_t>(r.m));
      r.scratch.resize(static_cast<std::size_t>(gemv_scratch_doubles));
      bench::fill(r.A, 21);
      bench::fill(r.x, 22);
      r.cublas();
      LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
      r.y.download(r.expected);
      const auto m = r.m, n = r.n;
      double* A = r.A.data();
      double* x = r.x.data();
      double* y = r.y.data();
      double* scratch = r.scratch.data();
      const Config chosen = choose_config(m, n);
      std::printf("%s (m = %lld, n = %lld): gemv_best uses %s, group %d, splits %d\n", shape.name,
                  static_cast<long long>(m), static_cast<long long>(n),
                  chosen.kind == Config::short_rows ? "short_rows" : "group_rows", chosen.group, chosen.splits);
      r.row("cuBLAS dgemv", [&] { r.cublas(); });
      r.row("cuBLAS dgemv, end after device sync", [&] { r.cublas(); }, bench::EndMark::after_device_sync);
      r.row("reference gemv_best", [&] { gemv_best(A, x, y, m, n, scratch); });
      r.row("reference gemv_best, end after device sync", [&] { gemv_best(A, x, y, m, n, scratch); },
            bench::EndMark::after_device_sync);
      r.row("course thread per row (judge baseline)", [&] {
        course_thread_per_row<<<static_cast<unsigned>((m + 255) / 256), 256>>>(A, x, y, m, n);
      });
      r.row("reference thread per row", [&] { gemv_thread_per_row(A, x, y, m, n); });
      r.row("reference warp per row", [&] { gemv_warp_per_row(A, x, y, m, n); });
      r.row("reference 8 warps per row", [&] { gemv_warps_per_row(A, x, y, m, n, 8); });
      r.row("reference 32 warps per row", [&] { gemv_warps_per_row(A, x, y, m, n, 32); });
      if (!explore) continue;
      auto explore_row = [&](const Config& c) {
        std::string label = c.kind == Config::short_rows ? "explore short_rows " + std::to_string(c.group)
                                                         : "explore G=" + std::to_string(c.group) + " splits=" +
                                                               std::to_string(c.splits) + " unroll=" +
                                                               std::to_string(c.unroll) + (c.ldg ? " ldg" : " ldcs");
        r.row(label, [&] { launch(c, A, x, y, m, n, scratch); });
      };
      if (n <= 32) {
        for (int rows : {128, 256}) explore_row({Config::short_rows, rows, 1});
        continue;
      }
      const bool wide = m < 1000;
      for (int group : {64, 128, 256}) {
        for (int splits : wide ? std::vector<int>{100, 200, 400} : std::vector<int>{1}) {
          for (int unroll : {4, 8}) {
            for (bool ldg : {false, true}) {
              if (wide && group < 256) continue;
              explore_row({Config::group_rows, group, splits, unroll, ldg});
            }
          }
        }
      }
    }
    cublasDestroy(handle);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lab5_gemv_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
