// lab1_matvec_bandwidth: how close lab 1's reference gets to this machine's memory bandwidth, on one core.
//
// Measures, at m = n = 10000 (A is 800 MB, far beyond every cache), interleaved and as medians:
//   triad        a[i] = b[i] + s * c[i] over 80M doubles, counted as 24 bytes per element (STREAM's convention)
//   dgemv        OpenBLAS cblas_dgemv on one thread
//   reference    reference/lab1-matvec matvec_unrolled
//   naive        the row-pointer double loop of labs/lab1-matvec/baseline.cpp (the speedup baseline)
// matvec figures count 8 * (m*n + m + n) bytes: A, x and y once each.
//
// Build by hand, from the repository root:
//   g++ -O2 -march=native -Ilabs/lab1-matvec bench/lab1_matvec_bandwidth.cpp reference/lab1-matvec/matvec.cpp -lopenblas
// or with CMake:  the bench_lab1_matvec target (built only when OpenBLAS is found). Runs in about 15 s.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "matvec.h"

extern "C" void openblas_set_num_threads(int);  // also in OpenBLAS's cblas.h; declared here for other cblas.h files

namespace {

constexpr std::int64_t m = 10000, n = 10000;
constexpr std::int64_t triad_elements = 80'000'000;  // 3 arrays of 640 MB
constexpr int rounds = 9;

// The judge's baseline, copied so that it can sit beside the reference's functions of the same name.
__attribute__((noinline)) void naive_rowptr(const double* const* rows, const double* x, double* y, std::int64_t rows_m,
                                            std::int64_t cols_n) {
  for (std::int64_t i = 0; i < rows_m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < cols_n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

__attribute__((noinline)) void triad(double* a, const double* b, const double* c, double s, std::int64_t count) {
  for (std::int64_t i = 0; i < count; ++i) a[i] = b[i] + s * c[i];
}

double seconds(const std::function<void()>& work) {
  auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

double max_relative_difference(const std::vector<double>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]) / (1e-300 + std::abs(want[i])));
  return worst;
}

struct Kernel {
  std::string name;
  double bytes;
  std::function<void()> work;
  std::vector<double> times;
};

}  // namespace

int main() {
  openblas_set_num_threads(1);

  // Stage 1: initialise (every page touched, so no timed run pays for first-touch page faults).
  std::vector<double> a(static_cast<std::size_t>(m * n)), x(n), y_ref(m), y_blas(m), y_naive(m);
  std::uint64_t state = 42;
  auto uniform = [&state] {  // [-1, 1), deterministic
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
  };
  for (auto& v : a) v = uniform();
  for (auto& v : x) v = uniform();
  std::vector<std::unique_ptr<double[]>> row_storage;
  std::vector<const double*> rows;
  for (std::int64_t i = 0; i < m; ++i) {
    row_storage.push_back(std::make_unique<double[]>(n));
    std::copy_n(a.data() + i * n, n, row_storage.back().get());
    rows.push_back(row_storage.back().get());
  }
  std::vector<double> ta(triad_elements, 0.0), tb(triad_elements, 1.0), tc(triad_elements, 2.0);

  const double matvec_bytes = 8.0 * static_cast<double>(m * n + m + n);
  std::vector<Kernel> kernels = {
      {"triad (STREAM-like, 24 B/element)", 24.0 * triad_elements, [&] { triad(ta.data(), tb.data(), tc.data(), 3.0, triad_elements); }, {}},
      {"OpenBLAS cblas_dgemv, 1 thread", matvec_bytes,
       [&] { cblas_dgemv(CblasRowMajor, CblasNoTrans, m, n, 1.0, a.data(), n, x.data(), 1, 0.0, y_blas.data(), 1); }, {}},
      {"reference matvec_unrolled", matvec_bytes, [&] { matvec_unrolled(a.data(), x.data(), y_ref.data(), m, n); }, {}},
      {"naive row pointers (judge baseline)", matvec_bytes, [&] { naive_rowptr(rows.data(), x.data(), y_naive.data(), m, n); }, {}},
  };

  // Stage 2: check. A fast wrong answer is not a result.
  for (auto& k : kernels) k.work();
  const double blas_diff = max_relative_difference(y_blas, y_naive), ref_diff = max_relative_difference(y_ref, y_naive);
  if (ta[0] != 7.0 || blas_diff > 1e-9 || ref_diff > 1e-9) {
    std::fprintf(stderr, "results disagree: triad %g (want 7), dgemv %.2e, reference %.2e (relative to naive)\n", ta[0],
                 blas_diff, ref_diff);
    return 1;
  }

  // Stage 3: trials, interleaved so that a slow moment of the machine hits every kernel alike.
  for (int r = 0; r < rounds; ++r)
    for (auto& k : kernels) k.times.push_back(seconds(k.work));

  // Stage 4: summarise.
  std::printf("lab1 matvec bandwidth, m = n = %lld, one thread, median of %d interleaved runs\n", static_cast<long long>(m), rounds);
  std::printf("%-38s %10s %10s %10s\n", "kernel", "ms", "GB/s", "of triad");
  const double triad_rate = kernels[0].bytes / median(kernels[0].times);
  for (const auto& k : kernels) {
    const double t = median(k.times), rate = k.bytes / t;
    std::printf("%-38s %10.2f %10.2f %9.0f%%\n", k.name.c_str(), t * 1e3, rate / 1e9, 100.0 * rate / triad_rate);
  }
  std::printf("speedup of reference over naive row pointers: %.2fx\n", median(kernels[3].times) / median(kernels[2].times));
  return 0;
}
