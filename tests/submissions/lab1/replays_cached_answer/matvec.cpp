// Threat: work skipped across timed calls at a plausible speed (issue 16, the "capped sleepy cache"). A benchmark
// calls matvec_unrolled again and again; this one remembers its last answer, keyed by the input pointers, the
// sizes and a few sampled entries of A and x. On a hit it copies the old y back and busy-waits until a believable
// time has passed (a plain loop's), so it stays under the roofline ceiling and the grader's outside timing agrees:
// the time is really spent. Before fresh inputs this scored full performance marks for a naive loop.
// Expected verdict: correctness passes (every first call computes); the performance items are wrong_answer (a
// timed call's inputs changed at positions the sample missed, and the stale answer is checked against the judge's
// for those inputs) or, where the sample saw a change, honest timings of a naive loop. Never full marks.
#include <chrono>
#include <cstring>
#include <vector>

#include "matvec.h"

namespace {

struct Memory {
  const double* a = nullptr;
  const double* x = nullptr;
  std::int64_t m = 0, n = 0;
  std::vector<double> samples, y;
  double seconds = 0;  // how long computing it took: what a replay pretends to take
};

Memory& memory() {
  static Memory* kept = new Memory();
  return *kept;
}

std::vector<double> sample(const double* a, const double* x, std::int64_t m, std::int64_t n) {
  std::vector<double> s;
  for (std::int64_t k = 0; k < 8; ++k) {
    s.push_back(a[(k * 7919 * n + k * 104729) % (m * n)]);
    s.push_back(x[(k * 7919) % n]);
  }
  return s;
}

void naive(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}

}  // namespace

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) { naive(a, x, y, m, n); }

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  Memory& last = memory();
  const std::vector<double> key = sample(a, x, m, n);
  if (a == last.a && x == last.x && m == last.m && n == last.n && key == last.samples) {
    std::memcpy(y, last.y.data(), sizeof(double) * static_cast<std::size_t>(m));
    // A believable time: 55% of what computing took (the speedup tiers' full marks, under the roofline).
    const double believable = 0.55 * last.seconds;
    while (std::chrono::duration<double>(clock::now() - start).count() < believable) {
    }
    return;
  }
  naive(a, x, y, m, n);
  last.a = a;
  last.x = x;
  last.m = m;
  last.n = n;
  last.samples = key;
  last.y.assign(y, y + m);
  last.seconds = std::chrono::duration<double>(clock::now() - start).count();
}
