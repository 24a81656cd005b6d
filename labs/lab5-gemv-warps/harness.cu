// harness.cu: lab 5's problem for the lab kit. Builds A (m x n) and x (n) from the case's seed on the host,
// uploads them, calls one of the gemv variants on the device and hands y back. Linked with the student's
// gemv.cu (the candidate) and with baseline.cu (the judge); see grader/labkit/include/labkit/cuda.h.
//
// The variants, in one table below (dispatch and the hello listing both come from it):
//   thread_per_row, warp_per_row, warps_per_row, best   the student's four functions (gemv.h)
//   baseline   judge only: the course's one-thread-per-row kernel, the yardstick of every speedup
//   cublas     judge only: cuBLAS dgemv, timed for the report (`compare = ["cublas"]` in lab.toml)
// The judge-only variants are reached through weak symbols that baseline.cu defines; in the candidate they
// are null, and asking for them there is the lab's error, not the student's.
#include <labkit/labkit.h>
#include <labkit/cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gemv.h"

extern "C" {
__attribute__((weak)) void lab5_judge_baseline(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n);
__attribute__((weak)) void lab5_judge_cublas(const double* A, const double* x, double* y, std::int64_t m, std::int64_t n);
}

namespace {

using labkit::cuda::DeviceBuffer;

struct Gemv;

struct Variant {
  const char* name;
  void (*call)(Gemv&);
};

struct Gemv : labkit::CudaProblem {
  std::int64_t m = 0, n = 0;
  int warps = 8;  // warps per row for the warps_per_row variant: the case's `warps`, 8 when it has none
  std::vector<double> a, x, y;
  DeviceBuffer<double> d_a, d_x, d_y, d_scratch;

  static const std::vector<Variant>& table();

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const auto& v : table()) names.push_back(v.name);
    return names;
  }

  void setup(labkit::Case& c) override {
    m = c.params.integer("m");
    n = c.params.integer("n");
    warps = static_cast<int>(c.params.integer("warps", 8));
    if (m < 1 || n < 1) throw labkit::Error("lab5 needs m >= 1 and n >= 1, got m=" + std::to_string(m) + ", n=" + std::to_string(n));
    if (warps < 1 || warps > 32) throw labkit::Error("lab5's warps must be 1..32, got " + std::to_string(warps));
    c.input("a", a, {m, n}, -1.0, 1.0);
    c.input("x", x, {n}, -1.0, 1.0);
    d_a.upload(a);
    d_x.upload(x);
    mirror("a", a, d_a);  // fresh inputs reach the device copies (labkit/cuda.h)
    mirror("x", x, d_x);
    d_y.resize(static_cast<std::size_t>(m));
    d_scratch.resize(static_cast<std::size_t>(gemv_scratch_doubles));
  }

  void poison() override {
    d_y.poison();
    d_scratch.poison();
  }

  void run(std::string_view variant) override {
    for (const auto& v : table()) {
      if (variant == v.name) {
        v.call(*this);
        labkit::cuda::check_launch(v.name);
        return;
      }
    }
    throw labkit::Error("lab5 has no variant '" + std::string(variant) + "'");
  }

  std::vector<labkit::ArrayRef> inputs() override { return {labkit::ref("a", a, {m, n}), labkit::ref("x", x, {n})}; }
  std::vector<labkit::ArrayRef> outputs() override { return {download("y", d_y, y, {m})}; }
};

using JudgeGemv = void(const double*, const double*, double*, std::int64_t, std::int64_t);

// A weak symbol nobody defined is null: this is the candidate, which has no judge variants.
void judge_only(JudgeGemv* function, Gemv& g, const char* name) {
  if (function == nullptr) throw labkit::Error(std::string(name) + " is one of the judge's own variants; the candidate has none");
  function(g.d_a.data(), g.d_x.data(), g.d_y.data(), g.m, g.n);
}

const std::vector<Variant>& Gemv::table() {
  static const std::vector<Variant> variants = {
      {"thread_per_row", [](Gemv& g) { gemv_thread_per_row(g.d_a.data(), g.d_x.data(), g.d_y.data(), g.m, g.n); }},
      {"warp_per_row", [](Gemv& g) { gemv_warp_per_row(g.d_a.data(), g.d_x.data(), g.d_y.data(), g.m, g.n); }},
      {"warps_per_row",
       [](Gemv& g) { gemv_warps_per_row(g.d_a.data(), g.d_x.data(), g.d_y.data(), g.m, g.n, g.warps); }},
      {"best", [](Gemv& g) { gemv_best(g.d_a.data(), g.d_x.data(), g.d_y.data(), g.m, g.n, g.d_scratch.data()); }},
      {"baseline", [](Gemv& g) { judge_only(lab5_judge_baseline, g, "baseline"); }},
      {"cublas", [](Gemv& g) { judge_only(lab5_judge_cublas, g, "cublas"); }},
  };
  return variants;
}

}  // namespace

LABKIT_PROBLEM(Gemv)
