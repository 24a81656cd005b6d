// harness.cpp: lab 2's problem for the lab kit. Builds A (m x k), B (k x n) and the initial C (m x n) from
// the case's seed, calls one of the seven loop-order functions, and hands C back. Linked with the student's
// loop_order.cpp (the candidate) and with baseline.cpp (the judge); see grader/labkit/include/labkit/labkit.h.
#include <labkit/labkit.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "loop_order.h"

namespace {

using MatmulFn = void (*)(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t);

// The one registry of the lab: variant names (as lab.toml spells them) and the functions they call.
struct Variant {
  const char* name;
  MatmulFn fn;
};
constexpr Variant kVariants[] = {
    {"ijk", matmul_ijk}, {"ikj", matmul_ikj}, {"jik", matmul_jik}, {"jki", matmul_jki},
    {"kij", matmul_kij}, {"kji", matmul_kji}, {"best", matmul_best},
};

struct LoopOrder : labkit::Problem {
  std::int64_t m = 0, n = 0, k = 0;
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
    if (m < 1 || n < 1 || k < 1)
      throw labkit::Error("lab2 needs m, n, k >= 1, got m=" + std::to_string(m) + ", n=" + std::to_string(n) +
                          ", k=" + std::to_string(k));
    cs.input("a", a, {m, k}, -1.0, 1.0);
    cs.input("b", b, {k, n}, -1.0, 1.0);
    cs.input("c0", c0, {m, n}, -1.0, 1.0);
    c.resize(c0.size());
  }

  // The lab kit's usual poison (NaN in every output) cannot work here: the functions compute C += A B, and
  // NaN + anything is NaN. The right "not yet computed" state for an accumulation is its starting value, so
  // every call, timed or not, starts from a fresh copy of c0. That keeps the poison's guarantee: a function
  // that does nothing (or forgets rows) returns c0 where c0 + A B was expected, and fails the check. The copy
  // happens here, outside the timed region, for the candidate and the judge alike.
  void poison() override { std::copy(c0.begin(), c0.end(), c.begin()); }

  void run(std::string_view variant) override {
    for (const auto& v : kVariants) {
      if (variant == v.name) {
        v.fn(a.data(), b.data(), c.data(), m, n, k);
        return;
      }
    }
    throw labkit::Error("lab2 has no variant '" + std::string(variant) + "' (ijk, ikj, jik, jki, kij, kji, best)");
  }

  std::vector<labkit::ArrayRef> inputs() override {
    return {labkit::ref("a", a, {m, k}), labkit::ref("b", b, {k, n}), labkit::ref("c0", c0, {m, n})};
  }
  std::vector<labkit::ArrayRef> outputs() override { return {labkit::ref("c", c, {m, n})}; }
};

}  // namespace

LABKIT_PROBLEM(LoopOrder)
