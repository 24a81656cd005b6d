// cpu_calibrate.cpp: this machine's ceilings for the roofline, on one thread and on all of them.
// Built by `grader calibrate` with -O3 -march=native -fopenmp and run once per machine; prints JSON.
//
//   read-write bandwidth: the better of a STREAM-style copy and triad over arrays far larger than the
//                         caches (bytes counted as STREAM counts them: no write-allocate traffic);
//   read-only bandwidth:  the best of dot products of two such arrays and a sum of one (kernels that only
//                         read, like a dot product, a matrix-vector product or a reduction, are held to it);
//   FP64 peak:            independent fused multiply-add chains, as many as the vector units can keep busy.
//
// With `--probe` it prints only how far all threads outrun one on the FP64 kernel right now (see probe()).
#include <omp.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
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

double process_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
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
    const double wall = seconds_since(start);
    best = std::min(best, threads == 1 ? thread_seconds() - cpu_start : wall);
  }
  return best;
}

// The CPU time other programs took on the CPUs this process may run on, from /proc/stat's per-CPU lines
// (user nice system idle iowait irq softirq steal, in clock ticks; steal is time the hypervisor gave to
// another guest, which is load too), less this process's own. Only this process's CPUs count: on a host
// shared through cpusets, load on other CPUs takes nothing from us.
//
// Why not "were all threads on a CPU the whole time": on machines whose cores are uneven (SMT siblings, a
// hypervisor's vCPUs, turbo that differs by core), fast threads finish early and wait at the join on a
// quiet machine. That once marked an idle 16-core host "busy" in every round, so its all-thread ceilings
// were thrown away. What makes all-thread figures too low is other programs' CPU time, so that is measured.
class ForeignLoad {
 public:
  ForeignLoad() : busy_start_(busy_seconds()), own_start_(process_seconds()), wall_start_(clock_type::now()) {}

  // Other programs' CPU time since construction, as a share of our CPUs' capacity over that time.
  double share() const {
    const double wall = seconds_since(wall_start_);
    const double foreign = (busy_seconds() - busy_start_) - (process_seconds() - own_start_);
    return wall > 0 ? std::max(0.0, foreign) / (wall * static_cast<double>(cpus().size())) : 0;
  }

 private:
  static std::vector<int> cpus() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> ours;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) ours.push_back(c);
    return ours;
  }

  static double busy_seconds() {
    static const std::vector<int> ours = cpus();
    static const double ticks = static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)));
    std::ifstream stat("/proc/stat");
    std::string line;
    double busy = 0;
    while (std::getline(stat, line)) {
      // The summary line "cpu  ..." names no CPU (%d would skip its spaces and read its first figure for one).
      if (line.size() < 4 || line.compare(0, 3, "cpu") != 0 || !std::isdigit(static_cast<unsigned char>(line[3])))
        continue;
      int cpu = -1;
      double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
      if (std::sscanf(line.c_str(), "cpu%d %lf %lf %lf %lf %lf %lf %lf %lf", &cpu, &user, &nice, &system, &idle,
                      &iowait, &irq, &softirq, &steal) < 8)
        continue;
      if (std::find(ours.begin(), ours.end(), cpu) != ours.end()) busy += user + nice + system + irq + softirq + steal;
    }
    return busy / ticks;
  }

  double busy_start_, own_start_;
  clock_type::time_point wall_start_;
};

// Above this share of our CPUs taken by other programs while all threads were timed, the all-thread ceilings
// are too low, and the calibration says BUSY. Clock-tick accounting is coarse (10 ms a CPU), and the
// all-thread trials of one round last about a second, so a tenth is well above the counting's own noise.
constexpr double busy_share = 0.10;

volatile double sink;

// GCC vector types pin the width to the widest unit (AVX-512 where the CPU has it).
#if defined(__AVX512F__)
constexpr int lanes = 8;
#else
constexpr int lanes = 4;
#endif
typedef double vector_type __attribute__((vector_size(lanes * sizeof(double))));

vector_type load(const double* p) {
  vector_type v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

struct Bandwidth {
  double read_write_gbps = 0;  // the better of a STREAM copy and triad (read + written bytes per second)
  double read_gbps = 0;        // a dot product of two arrays: read bytes per second
};

Bandwidth bandwidth(int threads, std::size_t n) {
  std::vector<double> a(n), b(n), c(n);
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < n; ++i) {  // first touch by the threads that will use the pages
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  const double scalar = 3.0;
  const double bytes_copy = 16.0 * n, bytes_triad = 24.0 * n;
  double copy = best_time(3, threads, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i];
  });
  double triad = best_time(3, threads, [&] {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + scalar * c[i];
  });
  // Read-only kernels (a dot product, a matrix-vector product, a reduction) outrun copy and triad: nothing
  // is written back. Four independent accumulators per thread, so no sum is one dependency chain that measures
  // the adder's latency instead of memory, over three walks: a dot product as two streams; a dot product as
  // eight (each thread's share in four parts read at once); and a sum of one array as four streams, the shape
  // of a matrix-vector product reading four rows at once with x in cache. Which is fastest depends on the core:
  // one core's bandwidth is bounded by the misses it keeps in flight and by how many streams its prefetcher
  // follows. On an Intel Xeon a four-row matrix-vector product reached 124% of the two-stream figure, and 107%
  // of the better of the two dot products on a CI machine; on an AMD EPYC the two streams were fastest. The
  // ceiling is the best of the three.
  const double* x = b.data();
  const double* y = c.data();
  enum class Walk { dot_two_streams, dot_eight_streams, sum_four_streams };
  double read_gbps = 0;
  for (const Walk walk : {Walk::dot_two_streams, Walk::dot_eight_streams, Walk::sum_four_streams}) {
    const double seconds = best_time(3, threads, [&] {
      double total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
      {
        const std::size_t blocks = n / (4 * lanes);
        const std::size_t t = omp_get_thread_num(), p = omp_get_num_threads();
        const std::size_t first = blocks * t / p * 4 * lanes;
        const std::size_t parts = walk == Walk::dot_two_streams ? 1 : 4;
        const std::size_t part = (blocks * (t + 1) / p - blocks * t / p) / parts * 4 * lanes;
        vector_type s0{}, s1{}, s2{}, s3{};
        if (walk == Walk::dot_two_streams) {
          for (std::size_t i = first; i < first + part; i += 4 * lanes) {
            s0 += load(x + i) * load(y + i);
            s1 += load(x + i + lanes) * load(y + i + lanes);
            s2 += load(x + i + 2 * lanes) * load(y + i + 2 * lanes);
            s3 += load(x + i + 3 * lanes) * load(y + i + 3 * lanes);
          }
        } else if (walk == Walk::dot_eight_streams) {
          const double *x0 = x + first, *x1 = x0 + part, *x2 = x1 + part, *x3 = x2 + part;
          const double *y0 = y + first, *y1 = y0 + part, *y2 = y1 + part, *y3 = y2 + part;
          for (std::size_t i = 0; i < part; i += lanes) {
            s0 += load(x0 + i) * load(y0 + i);
            s1 += load(x1 + i) * load(y1 + i);
            s2 += load(x2 + i) * load(y2 + i);
            s3 += load(x3 + i) * load(y3 + i);
          }
        } else {
          const double *x0 = x + first, *x1 = x0 + part, *x2 = x1 + part, *x3 = x2 + part;
          for (std::size_t i = 0; i < part; i += lanes) {
            s0 += load(x0 + i);
            s1 += load(x1 + i);
            s2 += load(x2 + i);
            s3 += load(x3 + i);
          }
        }
        const vector_type s = s0 + s1 + s2 + s3;
        for (int l = 0; l < lanes; ++l) total += s[l];
      }
      sink = total;
    });
    const double bytes_read = (walk == Walk::sum_four_streams ? 8.0 : 16.0) * n;
    read_gbps = std::max(read_gbps, bytes_read / seconds / 1e9);
  }
  // (Each thread's parts leave out fewer than 16 * lanes elements of its share: a few in 40 million.)
  return {std::max(bytes_copy / copy, bytes_triad / triad) / 1e9, read_gbps};
}

// Twelve independent fused multiply-add chains: enough to cover the FMA latency (4 cycles) on two FMA
// ports, and they fit in AVX2's 16 registers. The empty asm keeps the compiler from folding the
// recurrence away.
constexpr int chains = 12;  // named one by one below: an array would be kept in memory, not registers

double chain_sum(vector_type v) {
  double total = 0;
  for (int l = 0; l < lanes; ++l) total += v[l];
  return total;
}

double peak_gflops(int threads, long iterations = 20'000'000, int trials = 2) {
  const double total_flops = 2.0 * lanes * chains * static_cast<double>(iterations) * threads;
  double elapsed = best_time(trials, threads, [&] {
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

// The ceilings of one round: each the best of a few trials.
struct Figures {
  Bandwidth one, all;
  double flops_one = 0, flops_all = 0;
  std::vector<double> list() const {
    return {one.read_write_gbps, one.read_gbps, all.read_write_gbps, all.read_gbps, flops_one, flops_all};
  }
};

// `--probe`: how far all threads outrun one on the FP64 kernel right now, in a tenth of a second. A grading runs
// it beside a measurement that uses several threads: a machine that gives all threads much less than the
// calibration found (a neighbour on the host, a hypervisor that takes a vCPU away without reporting steal
// time) cannot be seen from inside this VM any other way. Each side runs about 10 ms per trial; the best of
// three on one thread (its own CPU time) and the median of three on all of them, so a short lull between
// bursts of contention does not hide it.
int probe() {
  const int all = omp_get_max_threads();
  const long iterations = 5'000'000;
  const double one = peak_gflops(1, iterations, 3);
  double runs[3];
  for (double& run : runs) run = peak_gflops(all, iterations, 1);
  std::sort(runs, runs + 3);
  std::printf("{\"threads\": %d, \"cpu_scaling_now\": %.3f}\n", all, one > 0 ? runs[1] / one : 0.0);
  return 0;
}

}  // namespace

// Rounds are repeated until the machine's best stops improving: a ceiling is what the machine can do, so
// each figure keeps its best over the rounds, and the calibration is stable once a whole round moved none
// of them by more than 3%. A machine that never settles (another program competing for the cores) is said
// to be unstable in the output, and `grader calibrate` warns about it. Two busy rounds in a row end it early:
// a load that outlasted two rounds (about 20 s) is not a moment's noise, and three more rounds under it would
// make whoever waits for the calibration wait half a minute longer for a result that still says BUSY.
int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--probe") return probe();
  const int all = omp_get_max_threads();
  const std::size_t n = 40'000'000;  // 3 arrays of 320 MB: far beyond any last-level cache
  constexpr int min_rounds = 2, max_rounds = 5;
  constexpr double settled = 0.03;
  Figures best;
  int rounds = 0, busy_in_a_row = 0;
  bool stable = false, busy = false;
  double foreign_share = 0;
  while (rounds < max_rounds && !stable && busy_in_a_row < 2) {
    Figures round;
    round.one = bandwidth(1, n);
    round.flops_one = peak_gflops(1);
    const ForeignLoad others;
    round.all = bandwidth(all, n);
    round.flops_all = peak_gflops(all);
    foreign_share = others.share();
    const auto before = best.list(), now = round.list();
    bool moved = false;
    for (std::size_t i = 0; i < now.size(); ++i) moved = moved || now[i] > before[i] * (1 + settled);
    best.one.read_write_gbps = std::max(best.one.read_write_gbps, round.one.read_write_gbps);
    best.one.read_gbps = std::max(best.one.read_gbps, round.one.read_gbps);
    best.all.read_write_gbps = std::max(best.all.read_write_gbps, round.all.read_write_gbps);
    best.all.read_gbps = std::max(best.all.read_gbps, round.all.read_gbps);
    best.flops_one = std::max(best.flops_one, round.flops_one);
    best.flops_all = std::max(best.flops_all, round.flops_all);
    ++rounds;
    busy = foreign_share > busy_share;
    busy_in_a_row = busy ? busy_in_a_row + 1 : 0;
    stable = rounds >= min_rounds && !moved && !busy;
  }
  std::printf("{\"threads\": %d, \"bandwidth_1t_gbps\": %.3f, \"bandwidth_all_gbps\": %.3f, "
              "\"read_bandwidth_1t_gbps\": %.3f, \"read_bandwidth_all_gbps\": %.3f, "
              "\"peak_fp64_gflops_1t\": %.3f, \"peak_fp64_gflops_all\": %.3f, \"rounds\": %d, \"stable\": %s, \"busy\": %s, "
              "\"others_share\": %.3f}\n",
              all, best.one.read_write_gbps, best.all.read_write_gbps, best.one.read_gbps, best.all.read_gbps,
              best.flops_one, best.flops_all, rounds, stable ? "true" : "false", busy ? "true" : "false",
              foreign_share);
  return 0;
}
