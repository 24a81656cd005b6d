// harness.cpp: lab 3's problem for the lab kit. Builds the inputs of one case from its seed, sets the OpenMP
// team size the case asks for, calls one of the three kernels and hands the output back. Linked with the
// student's parallel.cpp (the candidate) and with baseline.cpp (the judge); see
// grader/labkit/include/labkit/labkit.h for the contract.
//
// A case's parameters say which problem it is, because setup() runs before the grader names a variant:
//
//   | parameters           | inputs                                   | variants      |
//   |----------------------|------------------------------------------|---------------|
//   | m, k, n              | A (m x k), B (k x n)                     | matmul        |
//   | m, n (no k)          | L (m x m, NaN above the diagonal), B     | matmul_lower  |
//   | len                  | x, y (len each)                          | dot           |
//
// and every case also gives `nthreads` (the team size: omp_set_num_threads before every call) and may give
// `exact = 1`: inputs are then small whole numbers, so every product and every partial sum is exact in
// double and any summation order gives the same bits. Those cases catch races: one lost update changes the
// answer by at least 1, far outside the tolerance, where with random reals it could hide in rounding.
#include <labkit/labkit.h>
#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "parallel.h"

// The judge's serial code (baseline.cpp), the cap of the scaling items' yardstick: weak, so null in the candidate.
extern "C" {
__attribute__((weak)) void lab3_judge_serial_matmul(const double*, const double*, double*, std::int64_t, std::int64_t,
                                                    std::int64_t);
__attribute__((weak)) void lab3_judge_serial_matmul_lower(const double*, const double*, double*, std::int64_t,
                                                          std::int64_t);
__attribute__((weak)) double lab3_judge_serial_dot(const double*, const double*, std::int64_t);
}

namespace {

enum class Shape { matmul, lower, dot };

const char* variant_for(Shape shape) {
  switch (shape) {
    case Shape::matmul: return "matmul";
    case Shape::lower: return "matmul_lower";
    case Shape::dot: return "dot";
  }
  return "?";
}

struct Parallel : labkit::Problem {
  Shape shape = Shape::matmul;
  std::int64_t m = 0, k = 0, n = 0, len = 0;
  int nthreads = 1;
  std::vector<double> a, b, c;  // matmul: A, B, C; matmul_lower: L (in a), B, C
  std::vector<double> x, y, result;  // dot: x, y and the one-element answer

  // serial_*: judge only, the same problem computed by the judge's serial code (baseline.cpp).
  std::vector<std::string> variants() const override {
    return {"matmul", "matmul_lower", "dot", "serial_matmul", "serial_matmul_lower", "serial_dot"};
  }

  void setup(labkit::Case& cs) override {
    const auto& p = cs.params;
    nthreads = static_cast<int>(p.integer("nthreads"));
    if (nthreads < 1) throw labkit::Error("lab3 needs nthreads >= 1, got " + std::to_string(nthreads));
    const bool exact = p.integer("exact", 0) != 0;
    // Whole numbers 1..4: products and sums stay exact integers far below 2^53 at every size the lab uses.
    const double lo = exact ? 1.0 : -1.0, hi = exact ? 5.0 : 1.0;
    omp_set_num_threads(nthreads);

    if (p.has("len")) {
      shape = Shape::dot;
      len = positive(p, "len");
      // Positive values: the sum grows with len and never cancels to near zero, so a relative tolerance
      // means the same at every length.
      cs.input("x", x, {len}, exact ? lo : 0.0, hi);
      cs.input("y", y, {len}, exact ? lo : 0.0, hi);
      if (exact) {
        whole(x);
        whole(y);
      }
      result.resize(1);
    } else if (p.has("k")) {
      shape = Shape::matmul;
      m = positive(p, "m");
      k = positive(p, "k");
      n = positive(p, "n");
      cs.input("a", a, {m, k}, lo, hi);
      cs.input("b", b, {k, n}, lo, hi);
      if (exact) {
        whole(a);
        whole(b);
      }
      c.resize(static_cast<std::size_t>(m * n));
    } else {
      shape = Shape::lower;
      m = positive(p, "m");
      n = positive(p, "n");
      cs.input("l", a, {m, m}, lo, hi);
      cs.input("b", b, {m, n}, lo, hi);
      if (exact) {
        whole(a);
        whole(b);
      }
      // Above the diagonal is not part of L: NaN, so code that reads it (a full matmul) gets NaN, not
      // the right answer at twice the work.
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t j = i + 1; j < m; ++j) a[static_cast<std::size_t>(i * m + j)] = std::numeric_limits<double>::quiet_NaN();
      c.resize(static_cast<std::size_t>(m * n));
    }
  }

  void poison() override {
    labkit::poison(c);
    labkit::poison(result);
  }

  void run(std::string_view variant) override {
    if (variant.rfind("serial_", 0) == 0) return run_serial(variant.substr(7));
    if (variant != variant_for(shape))
      throw labkit::Error("lab3: variant '" + std::string(variant) + "' cannot run on this case, whose parameters describe " +
                          variant_for(shape) + " (see the table at the top of harness.cpp)");
    omp_set_num_threads(nthreads);  // before every call: the student code must not have to know
    switch (shape) {
      case Shape::matmul: matmul(a.data(), b.data(), c.data(), m, k, n); break;
      case Shape::lower: matmul_lower(a.data(), b.data(), c.data(), m, n); break;
      case Shape::dot: result[0] = dot(x.data(), y.data(), len); break;
    }
  }

  std::vector<labkit::ArrayRef> inputs() override {
    switch (shape) {
      case Shape::matmul: return {labkit::ref("a", a, {m, k}), labkit::ref("b", b, {k, n})};
      case Shape::lower: return {labkit::ref("l", a, {m, m}), labkit::ref("b", b, {m, n})};
      case Shape::dot: return {labkit::ref("x", x, {len}), labkit::ref("y", y, {len})};
    }
    return {};
  }

  std::vector<labkit::ArrayRef> outputs() override {
    if (shape == Shape::dot) return {labkit::ref("dot", result, {1})};
    return {labkit::ref("c", c, {m, n})};
  }

 private:
  void run_serial(std::string_view variant) {
    if (variant != variant_for(shape))
      throw labkit::Error("lab3: variant 'serial_" + std::string(variant) + "' cannot run on this case, whose parameters describe " +
                          variant_for(shape));
    if (lab3_judge_serial_matmul == nullptr || lab3_judge_serial_matmul_lower == nullptr || lab3_judge_serial_dot == nullptr)
      throw labkit::Error("serial_" + std::string(variant) + " is one of the judge's own variants; the candidate has none");
    switch (shape) {
      case Shape::matmul: lab3_judge_serial_matmul(a.data(), b.data(), c.data(), m, k, n); break;
      case Shape::lower: lab3_judge_serial_matmul_lower(a.data(), b.data(), c.data(), m, n); break;
      case Shape::dot: result[0] = lab3_judge_serial_dot(x.data(), y.data(), len); break;
    }
  }

  static std::int64_t positive(const labkit::Params& p, std::string_view name) {
    const std::int64_t value = p.integer(name);
    if (value < 1) throw labkit::Error("lab3 needs " + std::string(name) + " >= 1, got " + std::to_string(value));
    return value;
  }
  static void whole(std::vector<double>& values) {
    for (auto& v : values) v = std::floor(v);
  }
};

}  // namespace

LABKIT_PROBLEM(Parallel)
