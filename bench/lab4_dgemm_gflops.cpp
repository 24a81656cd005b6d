// lab4_dgemm_gflops: how close lab 4's reference gets to a tuned BLAS on one core, and how far the naive loop is.
//
// Measures C += A B at m = n = k = 2048 (each matrix 32 MiB, far beyond the 2 MiB L2), interleaved and as medians:
//   dgemm       OpenBLAS cblas_dgemm on one thread (alpha = 1, beta = 1)
//   register    reference/lab4-blocking matmul_register_blocked (packing + an in-register micro-kernel)
//   blocked     reference/lab4-blocking matmul_blocked at block 128, the size the lab times (no register tile)
//   naive ikj   the loop of labs/lab4-blocking/harness.cpp that the lab's speedups are measured against
// All count 2 m n k flops. Each line gives the median wall-clock time and, beside it, the median time the
// thread was actually on a CPU: on a shared machine the second shows what the code does when it runs, the
// first what a grader timing it with a wall clock sees.
//
// Build by hand, from the repository root (the lab's own flags):
//   g++ -O3 -march=native -Ilabs/lab4-blocking bench/lab4_dgemm_gflops.cpp reference/lab4-blocking/blocking.cpp -lopenblas
// or with CMake: the bench_lab4_dgemm target (built only when OpenBLAS is found). Runs in about 40 s, most of it
// the naive loop.
#include <cblas.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "blocking.h"

extern "C" void openblas_set_num_threads(int);  // also in OpenBLAS's cblas.h; declared here for other cblas.h files

namespace {

constexpr std::int64_t n = 2048;  // square: m = n = k
constexpr int rounds = 5;

// The lab's speedup baseline (labs/lab4-blocking/harness.cpp), copied so that it is compiled here alike.
__attribute__((noinline)) void naive_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t nn,
                                         std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < nn; ++j) c[i * nn + j] += a[i * k + p] * b[p * nn + j];
}

struct Times {
  double wall = 0, cpu = 0;
};

Times measure(const std::function<void()>& work) {
  timespec cpu0{}, cpu1{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);
  const auto start = std::chrono::steady_clock::now();
  work();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
  const double cpu = static_cast<double>(cpu1.tv_sec - cpu0.tv_sec) + 1e-9 * static_cast<double>(cpu1.tv_nsec - cpu0.tv_nsec);
  return {wall, cpu};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

double max_abs_difference(const std::vector<double>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
  return worst;
}

struct Kernel {
  std::string name;
  std::function<void(double*)> work;  // C += A B into the given C
  std::vector<double> wall, cpu;
};

}  // namespace

int main() {
  openblas_set_num_threads(1);

  // Stage 1: initialise (every page touched, so no timed run pays for first-touch page faults).
  const auto elements = static_cast<std::size_t>(n * n);
  std::vector<double> a(elements), b(elements), c0(elements), c(elements);
  std::uint64_t state = 42;
  auto uniform = [&state] {  // [-1, 1), deterministic
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
  };
  for (auto& v : a) v = uniform();
  for (auto& v : b) v = uniform();
  for (auto& v : c0) v = uniform();

  const auto* pa = a.data();
  const auto* pb = b.data();
  std::vector<Kernel> kernels = {
      {"OpenBLAS cblas_dgemm, 1 thread",
       [&](double* out) { cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, pa, n, pb, n, 1.0, out, n); },
       {}, {}},
      {"reference matmul_register_blocked", [&](double* out) { matmul_register_blocked(pa, pb, out, n, n, n); }, {}, {}},
      {"reference matmul_blocked, block 128", [&](double* out) { matmul_blocked(pa, pb, out, n, n, n, 128); }, {}, {}},
      {"naive ikj (the lab's baseline)", [&](double* out) { naive_ikj(pa, pb, out, n, n, n); }, {}, {}},
  };

  // Stage 2: check. A fast wrong answer is not a result. Every kernel starts from the same C.
  std::vector<double> want = c0;
  kernels.back().work(want.data());
  for (auto& k : kernels) {
    std::copy(c0.begin(), c0.end(), c.begin());
    k.work(c.data());
    const double diff = max_abs_difference(c, want);
    if (!(diff <= 1e-9)) {
      std::fprintf(stderr, "%s disagrees with the naive loop: max |difference| %.3e\n", k.name.c_str(), diff);
      return 1;
    }
  }

  // Stage 3: trials, interleaved so that a slow moment of the machine hits every kernel alike. C keeps
  // accumulating; its values stay far from overflow in a few rounds.
  for (int r = 0; r < rounds; ++r)
    for (auto& k : kernels) {
      const Times t = measure([&] { k.work(c.data()); });
      k.wall.push_back(t.wall);
      k.cpu.push_back(t.cpu);
    }

  // Stage 4: summarise.
  const double flops = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  std::printf("lab4 dgemm, m = n = k = %lld, C += A B, one thread, median of %d interleaved runs\n",
              static_cast<long long>(n), rounds);
  std::printf("%-38s %10s %10s %12s %10s\n", "kernel", "ms", "GFLOP/s", "cpu GFLOP/s", "of BLAS");
  const double blas = flops / median(kernels[0].wall);
  for (const auto& k : kernels) {
    const double wall = median(k.wall), cpu = median(k.cpu);
    std::printf("%-38s %10.1f %10.2f %12.2f %9.0f%%\n", k.name.c_str(), wall * 1e3, flops / wall / 1e9, flops / cpu / 1e9,
                100.0 * flops / wall / blas);
  }
  std::printf("speedup of reference register-blocked over naive ikj: %.1fx; of blocked: %.1fx\n",
              median(kernels[3].wall) / median(kernels[1].wall), median(kernels[3].wall) / median(kernels[2].wall));
  return 0;
}
