// harness.cpp: lab 4's problem for the lab kit. Builds A (m x k), B (k x n) and the initial C (m x n) from the
// case's seed, calls one of the variants, and hands C back. Linked with the student's blocking.cpp (the
// candidate) and with baseline.cpp (the judge); see grader/labkit/include/labkit/labkit.h for the contract.
//
// Variants:
//   blocked   matmul_blocked with the case's `block` parameter
//   register  matmul_register_blocked (its block sizes are the implementation's own)
//   ikj       the unblocked i-k-j loop below: the fastest of lab 2's plain orders and the baseline the
//             performance items measure against. It lives here, not in the student's file, so the candidate
//             and the judge run the same code and students do not have to carry it.
//   cache_blocked  the judge's own cache blocking (below), with the case's `block`: the yardstick of the blocked
//             step's timing band (lab.toml [steps]). A matmul_blocked far faster than it on the same inputs is
//             register blocking under another name.
#include <labkit/labkit.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "blocking.h"

namespace {

using i64 = std::int64_t;

void naive_ikj(const double* a, const double* b, double* c, i64 m, i64 n, i64 k) {
  for (i64 i = 0; i < m; ++i)
    for (i64 p = 0; p < k; ++p)
      for (i64 j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

// c_row[0..len) += s * b_row[0..len). __restrict on the parameters (g++ honours it there) lets -O3 vectorise the
// loop without a runtime overlap check, as a student's blocked loop would.
void add_scaled_row(double* __restrict c_row, const double* __restrict b_row, double s, i64 len) {
  for (i64 j = 0; j < len; ++j) c_row[j] += s * b_row[j];
}

// Cache blocking as the handout teaches it and no more: block x block tiles of A, B and C around the i-k-j order,
// the inner loop vectorised; no register tiles, no packing. A blocked step may beat it by writing the same
// technique better, never by the several times that register blocking adds.
void cache_blocked_ikj(const double* a, const double* b, double* c, i64 m, i64 n, i64 k, i64 block) {
  for (i64 i0 = 0; i0 < m; i0 += block) {
    const i64 i1 = std::min(m, i0 + block);
    for (i64 p0 = 0; p0 < k; p0 += block) {
      const i64 p1 = std::min(k, p0 + block);
      for (i64 j0 = 0; j0 < n; j0 += block) {
        const i64 width = std::min(n, j0 + block) - j0;
        for (i64 i = i0; i < i1; ++i)
          for (i64 p = p0; p < p1; ++p) add_scaled_row(c + i * n + j0, b + p * n + j0, a[i * k + p], width);
      }
    }
  }
}

// The lab's registry: every name lab.toml may use, and how to call it.
enum class Kind { blocked, register_blocked, ikj, cache_blocked };
struct Variant {
  const char* name;
  Kind kind;
};
constexpr Variant kVariants[] = {{"blocked", Kind::blocked},
                                 {"register", Kind::register_blocked},
                                 {"ikj", Kind::ikj},
                                 {"cache_blocked", Kind::cache_blocked}};

struct Blocking : labkit::Problem {
  i64 m = 0, n = 0, k = 0, block = 0;
  std::vector<double> a, b, c0, c;

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const auto& v : kVariants) names.emplace_back(v.name);
    return names;
  }

  void setup(labkit::Case& cs) override {
    m = cs.params.integer("m");
    n = cs.params.integer("n");
    k = cs.params.integer("k");
    block = cs.params.integer("block", 0);  // only "blocked" and "cache_blocked" read it; 0: the case gave none
    if (m < 1 || n < 1 || k < 1)
      throw labkit::Error("lab4 needs m, n, k >= 1, got m=" + std::to_string(m) + ", n=" + std::to_string(n) +
                          ", k=" + std::to_string(k));
    if (cs.params.has("block") && (block < 1 || block > 512))
      throw labkit::Error("lab4's block must be 1 to 512 (blocking.h promises it), got " + std::to_string(block));
    cs.input("a", a, {m, k}, -1.0, 1.0);
    cs.input("b", b, {k, n}, -1.0, 1.0);
    cs.input("c0", c0, {m, n}, -1.0, 1.0);
    c.resize(c0.size());
  }

  // As in lab 2: the functions accumulate (C += A B), so NaN cannot mark C as not yet computed; its starting
  // value c0 does, since a function that skips an element leaves c0 where c0 + A B was expected. Copied
  // before every call, outside the timed region.
  void poison() override { std::copy(c0.begin(), c0.end(), c.begin()); }

  void run(std::string_view variant) override {
    for (const auto& v : kVariants) {
      if (variant != v.name) continue;
      switch (v.kind) {
        case Kind::blocked:
          if (block < 1) throw labkit::Error("lab4's blocked variant needs a `block` parameter in the case");
          matmul_blocked(a.data(), b.data(), c.data(), m, n, k, block);
          return;
        case Kind::register_blocked:
          matmul_register_blocked(a.data(), b.data(), c.data(), m, n, k);
          return;
        case Kind::ikj:
          naive_ikj(a.data(), b.data(), c.data(), m, n, k);
          return;
        case Kind::cache_blocked:
          if (block < 1) throw labkit::Error("lab4's cache_blocked variant needs a `block` parameter in the case");
          cache_blocked_ikj(a.data(), b.data(), c.data(), m, n, k, block);
          return;
      }
    }
    throw labkit::Error("lab4 has no variant '" + std::string(variant) + "' (blocked, register, ikj, cache_blocked)");
  }

  std::vector<labkit::ArrayRef> inputs() override {
    return {labkit::ref("a", a, {m, k}), labkit::ref("b", b, {k, n}), labkit::ref("c0", c0, {m, n})};
  }
  std::vector<labkit::ArrayRef> outputs() override { return {labkit::ref("c", c, {m, n})}; }
};

}  // namespace

LABKIT_PROBLEM(Blocking)
