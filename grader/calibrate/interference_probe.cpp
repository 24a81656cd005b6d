// interference_probe.cpp: what a timed program on one CPU reaches, for the interference calibration
// (grader/src/calibrate/interference.h). Built by the grader with -O2 -march=native and run pinned to one CPU:
//
//   interference_probe --cpu N            measure: prints {"stream_gbps":..,"cache_gbps":..,"fma_gflops":..}
//   interference_probe --cpu N --load S   be the load: the same kernels, in turn, for S seconds; prints nothing
//
// Three kernels, one for each thing a program on another core can take from a timing on this one:
//   stream: a triad over arrays far beyond the last-level cache (the memory bus: lab 1's matvec is bound by it);
//   cache:  the same over 2 MiB, which fits in a core's share of the last-level cache (a blocked kernel, lab 4);
//   fma:    independent fused multiply-add chains in registers (the core itself: a hyperthread sibling, turbo).
// Each runs for a fixed wall time and reports its rate over all of it: a compile beside it comes and goes, and a
// best pass would miss what a timing of several repetitions meets.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

using probe_clock = std::chrono::steady_clock;

double probe_seconds_since(probe_clock::time_point start) {
  return std::chrono::duration<double>(probe_clock::now() - start).count();
}

// Bytes triad passes move (STREAM's count: two reads and a write per element) over at least `seconds`.
double triad_gbps(std::vector<double>& a, const std::vector<double>& b, const std::vector<double>& c, double seconds) {
  const std::size_t n = a.size();
  double passes = 0;
  const auto start = probe_clock::now();
  do {
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 1.5 * c[i];
    ++passes;
  } while (probe_seconds_since(start) < seconds);
  return 24.0 * static_cast<double>(n) * passes / probe_seconds_since(start) / 1e9;
}

// Sixteen independent chains, so the FMA units stay busy whatever their latency.
double fma_gflops(double seconds) {
  double x[16];
  for (int i = 0; i < 16; ++i) x[i] = 1.0 + i * 1e-9;
  const double m = 0.999999999, k = 1e-9;
  const long steps = 1 << 18;
  double passes = 0;
  const auto start = probe_clock::now();
  do {
    for (long s = 0; s < steps; ++s)
      for (double& v : x) v = v * m + k;
    ++passes;
  } while (probe_seconds_since(start) < seconds);
  const double rate = 2.0 * 16 * static_cast<double>(steps) * passes / probe_seconds_since(start) / 1e9;
  double sum = 0;
  for (double v : x) sum += v;
  if (sum == 42.0) std::puts("");  // keeps the chains alive
  return rate;
}

}  // namespace

int main(int argc, char** argv) {
  int cpu = -1;
  double load_seconds = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--cpu") == 0) cpu = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--load") == 0) load_seconds = std::atof(argv[i + 1]);
  }
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
      std::fprintf(stderr, "cannot run on CPU %d\n", cpu);
      return 2;
    }
  }
  const std::size_t big = std::size_t(1) << 23;   // 3 arrays of 64 MiB
  const std::size_t small = std::size_t(1) << 16; // 3 arrays of 512 KiB
  std::vector<double> a(big, 1.0), b(big, 2.0), c(big, 3.0);
  std::vector<double> sa(small, 1.0), sb(small, 2.0), sc(small, 3.0);
  if (load_seconds > 0) {
    const auto start = probe_clock::now();
    while (probe_seconds_since(start) < load_seconds) {
      triad_gbps(a, b, c, 0.2);
      triad_gbps(sa, sb, sc, 0.1);
      fma_gflops(0.1);
    }
    return 0;
  }
  const double stream = triad_gbps(a, b, c, 0.25);
  const double cache = triad_gbps(sa, sb, sc, 0.15);
  const double fma = fma_gflops(0.15);
  std::printf("{\"stream_gbps\": %.3f, \"cache_gbps\": %.3f, \"fma_gflops\": %.3f}\n", stream, cache, fma);
  return 0;
}
