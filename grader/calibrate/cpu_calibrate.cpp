// cpu_calibrate.cpp: this machine's ceilings for the roofline, on one thread and on all of them.
// Built by `grader calibrate` with -O3 -march=native -fopenmp and run once per machine; prints JSON.
//
//   memory bandwidth: the best of a STREAM-style copy, triad and a read-only sum over arrays far larger
//                     than the caches (bytes counted as STREAM counts them: no write-allocate traffic);
//   FP64 peak:        independent fused multiply-add chains, as many as the vector units can keep busy.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// CPU time of the calling thread: a one-thread ceiling measured while other programs run is still the
// core's ceiling, not the share of it the scheduler gave us.
double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Best of `trials` runs of `body`, in seconds: ceilings are what the machine can do, so take the fastest.
// One thread: its own CPU time; several: wall time (they run together or not at all).
template <class Body>
double best_time(int trials, int threads, Body body) {
  double best = 1e30;
  for (int t = 0; t < trials; ++t) {
    auto start = clock_type::now();
    const double cpu_start = thread_seconds();
    body();
    best = std::min(best, threads == 1 ? thread_seconds() - cpu_start : seconds_since(start));
  }
  return best;
}

volatile double sink;

double bandwidth_gbps(int threads, std::size_t n) {
  std::vector<double> a(n), b(n), c(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {  // first touch by the threads that will use the pages
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  const double scalar = 3.0;
  const double bytes_copy = 16.0 * n, bytes_triad = 24.0 * n, bytes_read = 8.0 * n;
  double copy = best_time(5, threads, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  });
  double triad = best_time(5, threads, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
  });
  // `simd` lets the reduction be split over vector lanes, so the sum is not one long dependency chain
  // (which would measure the adder's latency, not memory).
  double read = best_time(5, threads, [&] {
    double total = 0;
#pragma omp parallel for simd num_threads(threads) schedule(static) reduction(+ : total)
    for (std::size_t i = 0; i < n; ++i) total += b[i];
    sink = total;
  });
  return std::max({bytes_copy / copy, bytes_triad / triad, bytes_read / read}) / 1e9;
}

// Twelve independent fused multiply-add chains: enough to cover the FMA latency (4 cycles) on two FMA
// ports, and they fit in AVX2's 16 registers. GCC vector types pin the width to the widest unit; the
// empty asm keeps the compiler from folding the recurrence away.
#if defined(__AVX512F__)
constexpr int lanes = 8;
#else
constexpr int lanes = 4;
#endif
constexpr int chains = 12;  // named one by one below: an array would be kept in memory, not registers
typedef double vector_type __attribute__((vector_size(lanes * sizeof(double))));

double chain_sum(vector_type v) {
  double total = 0;
  for (int l = 0; l < lanes; ++l) total += v[l];
  return total;
}

double peak_gflops(int threads) {
  const long iterations = 40'000'000;
  const double total_flops = 2.0 * lanes * chains * static_cast<double>(iterations) * threads;
  double elapsed = best_time(3, threads, [&] {
#pragma omp parallel num_threads(threads)
    {
      const vector_type m = vector_type{} + 0.999999999, c = vector_type{} + 1e-9;
      vector_type a0 = m, a1 = m + c, a2 = m + 2 * c, a3 = m + 3 * c, a4 = m + 4 * c, a5 = m + 5 * c;
      vector_type a6 = m + 6 * c, a7 = m + 7 * c, a8 = m + 8 * c, a9 = m + 9 * c, a10 = m + 10 * c, a11 = m + 11 * c;
      for (long i = 0; i < iterations; ++i) {
        a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
        a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
        a8 = a8 * m + c; a9 = a9 * m + c; a10 = a10 * m + c; a11 = a11 * m + c;
        asm volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5));
        asm volatile("" : "+v"(a6), "+v"(a7), "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11));
      }
      sink = chain_sum(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11);
    }
  });
  return total_flops / elapsed / 1e9;
}

}  // namespace

int main() {
  const int all = omp_get_max_threads();
  const std::size_t n = 40'000'000;  // 3 arrays of 320 MB: far beyond any last-level cache
  const double bw1 = bandwidth_gbps(1, n);
  const double bw_all = bandwidth_gbps(all, n);
  const double fl1 = peak_gflops(1);
  const double fl_all = peak_gflops(all);
  std::printf("{\"threads\": %d, \"bandwidth_1t_gbps\": %.3f, \"bandwidth_all_gbps\": %.3f, "
              "\"peak_fp64_gflops_1t\": %.3f, \"peak_fp64_gflops_all\": %.3f}\n",
              all, bw1, bw_all, fl1, fl_all);
  return 0;
}
