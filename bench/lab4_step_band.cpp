// lab4_step_band: where lab 4's timing band for the blocked step (lab.toml [steps], docs/design.md "Steps") should
// sit: how much faster than the judge's own cache blocking an honest blocked loop runs, and how much faster the
// register-blocked kernel runs (what a matmul_blocked that is register blocking under another name would show).
//
// For each candidate size (m x n x k, block) it runs interleaved rounds of four calls on the same inputs:
//   judge      the harness's cache_blocked (labs/lab4-blocking/harness.cpp, cache_blocked_ikj, copied below)
//   reference  reference/lab4-blocking matmul_blocked
//   mid-tier   bench/mid_tier/lab4-blocking matmul_blocked (a plain ikj: no blocking at all)
//   register   reference/lab4-blocking matmul_register_blocked (what a swapped step runs)
// and prints, per candidate against the judge: the ratio of medians (what the band's note shows), the ratio from
// crossed quartiles (judge q1 / candidate q3: the statistic the band used before), and the lower quartile of the
// per-round ratios (judge / candidate within one round: the statistic the band uses now, measure/step_band.cpp).
// The margin of a size is register's least favourable figure over the honest ones' most favourable.
//
// Build by hand, from the repository root (the lab's own flags, the mid-tier renamed so both trees link):
//   g++ -O3 -march=native -Ilabs/lab4-blocking -c -Dmatmul_blocked=mid_blocked \
//       -Dmatmul_register_blocked=mid_register_blocked bench/mid_tier/lab4-blocking/blocking.cpp -o /tmp/mid.o
//   g++ -O3 -march=native -Ilabs/lab4-blocking bench/lab4_step_band.cpp reference/lab4-blocking/blocking.cpp \
//       /tmp/mid.o -o /tmp/lab4_step_band && /tmp/lab4_step_band [rounds]
// Runs in about a minute at 11 rounds.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "blocking.h"

using i64 = std::int64_t;

void mid_blocked(const double* a, const double* b, double* c, i64 m, i64 n, i64 k, i64 block);

namespace {

// A copy of labs/lab4-blocking/harness.cpp's judge (add_scaled_row, cache_blocked_ikj).
void judge_row(double* __restrict c_row, const double* __restrict b_row, double s, i64 len) {
  for (i64 j = 0; j < len; ++j) c_row[j] += s * b_row[j];
}
void judge_cache_blocked(const double* a, const double* b, double* c, i64 m, i64 n, i64 k, i64 block) {
  for (i64 i0 = 0; i0 < m; i0 += block) {
    const i64 i1 = std::min(m, i0 + block);
    for (i64 p0 = 0; p0 < k; p0 += block) {
      const i64 p1 = std::min(k, p0 + block);
      for (i64 j0 = 0; j0 < n; j0 += block) {
        const i64 width = std::min(n, j0 + block) - j0;
        for (i64 i = i0; i < i1; ++i)
          for (i64 p = p0; p < p1; ++p) judge_row(c + i * n + j0, b + p * n + j0, a[i * k + p], width);
      }
    }
  }
}

double quartile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(at);
  const double frac = at - static_cast<double>(below);
  return below + 1 < values.size() ? values[below] * (1 - frac) + values[below + 1] * frac : values[below];
}

struct Size {
  i64 m, n, k, block;
};

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 11;
  const Size sizes[] = {{192, 576, 576, 64}, {192, 576, 576, 32}, {384, 768, 768, 64},
                        {96, 1536, 1536, 64}, {256, 1024, 1024, 128}, {192, 1152, 1152, 64}};
  const char* names[] = {"reference", "mid-tier", "register"};
  std::mt19937_64 random(1);
  std::uniform_real_distribution<double> uniform(-1, 1);
  for (const Size& s : sizes) {
    std::vector<double> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n);
    for (auto& x : a) x = uniform(random);
    for (auto& x : b) x = uniform(random);
    std::vector<double> seconds[4];
    for (int r = 0; r < rounds; ++r)
      for (int who = 0; who < 4; ++who) {
        std::fill(c.begin(), c.end(), 0.0);
        const auto start = std::chrono::steady_clock::now();
        if (who == 0) judge_cache_blocked(a.data(), b.data(), c.data(), s.m, s.n, s.k, s.block);
        if (who == 1) matmul_blocked(a.data(), b.data(), c.data(), s.m, s.n, s.k, s.block);
        if (who == 2) mid_blocked(a.data(), b.data(), c.data(), s.m, s.n, s.k, s.block);
        if (who == 3) matmul_register_blocked(a.data(), b.data(), c.data(), s.m, s.n, s.k);
        seconds[who].push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      }
    std::printf("%lld x %lld x %lld, block %lld: judge median %.1f ms\n", static_cast<long long>(s.m),
                static_cast<long long>(s.n), static_cast<long long>(s.k), static_cast<long long>(s.block),
                1e3 * quartile(seconds[0], 0.5));
    for (int who = 1; who < 4; ++who) {
      std::vector<double> paired;
      for (int r = 0; r < rounds; ++r) paired.push_back(seconds[0][r] / seconds[who][r]);
      std::printf("  %-10s median ratio %5.2fx  crossed quartiles %5.2fx..%5.2fx  per-round ratios q1 %5.2fx q3 %5.2fx\n",
                  names[who - 1], quartile(seconds[0], 0.5) / quartile(seconds[who], 0.5),
                  quartile(seconds[0], 0.25) / quartile(seconds[who], 0.75),
                  quartile(seconds[0], 0.75) / quartile(seconds[who], 0.25), quartile(paired, 0.25), quartile(paired, 0.75));
    }
  }
}
