// harness.cu: lab 7's problem for the lab kit. Builds A (m x k) and B (k x n) in single precision from the case's
// seed on the host, uploads them, calls one SGEMM version on the device and hands C (m x n) back. Linked with the
// student's sgemm.cu (the candidate) and with baseline.cu (the judge); see grader/labkit/include/labkit/cuda.h.
//
// The versions, in one table below (dispatch and the hello listing both come from it):
//   naive, shared, registers, best   the student's four functions (sgemm.h), in course order
//   baseline   judge only: the course's naive kernel (16 x 16 threads, one element each), the yardstick of speedups
//   cublas     judge only: cublasSgemm in true FP32 (no TF32), the professional figure and the yardstick of the
//              "fraction of cuBLAS" items
// The judge-only versions are weak symbols that baseline.cu defines; in the candidate they are null, and asking for
// them there is the lab's error, not the student's.
//
// The whole of C goes back to the grader and every element is checked (64 MB at 4096 x 4096: a fraction of a
// second through the pipe), so no sampling scheme can miss a wrong edge tile.
#include <labkit/cuda.h>
#include <labkit/labkit.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sgemm.h"

extern "C" {
__attribute__((weak)) void lab7_judge_baseline(const float* A, const float* B, float* C, int M, int N, int K);
__attribute__((weak)) void lab7_judge_cublas(const float* A, const float* B, float* C, int M, int N, int K);
}

namespace {

using labkit::cuda::DeviceBuffer;
using Sgemm = void(const float*, const float*, float*, int, int, int);

struct Version {
  const char* name;
  Sgemm* function;  // null: a judge-only version in the candidate
};

const std::vector<Version>& versions() {
  static const std::vector<Version> table = {
      {"naive", sgemm_naive}, {"shared", sgemm_shared},          {"registers", sgemm_registers},
      {"best", sgemm_best},   {"baseline", lab7_judge_baseline}, {"cublas", lab7_judge_cublas},
  };
  return table;
}

struct MatrixMultiply : labkit::CudaProblem {
  std::int64_t m = 0, n = 0, k = 0;
  std::vector<float> a, b, c;
  DeviceBuffer<float> d_a, d_b, d_c;

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const auto& v : versions()) names.push_back(v.name);
    return names;
  }

  void setup(labkit::Case& cs) override {
    m = cs.params.integer("m");
    n = cs.params.integer("n");
    k = cs.params.integer("k");
    constexpr std::int64_t limit = std::int64_t{1} << 31;
    if (m < 1 || n < 1 || k < 1) throw labkit::Error("lab7 needs m, n, k >= 1");
    if (m * n >= limit || m * k >= limit || k * n >= limit)
      throw labkit::Error("lab7's matrices must have fewer than 2^31 elements (sgemm.h promises it)");
    // Values in [-1, 1): products of both signs, so a lost or doubled term moves an entry by ~0.3 while the sum
    // stays ~sqrt(k)/3 in size; never all zeros, which would hide unwritten outputs.
    cs.input("a", a, {m, k}, -1.0, 1.0);
    cs.input("b", b, {k, n}, -1.0, 1.0);
    d_a.upload(a);
    d_b.upload(b);
    mirror("a", a, d_a);  // fresh inputs reach the device copies (labkit/cuda.h)
    mirror("b", b, d_b);
    d_c.resize(static_cast<std::size_t>(m * n));
  }

  void poison() override { d_c.poison(); }

  void run(std::string_view variant) override {
    for (const auto& v : versions()) {
      if (variant != v.name) continue;
      if (v.function == nullptr)
        throw labkit::Error(std::string(v.name) + " is one of the judge's own versions; the candidate has none");
      v.function(d_a.data(), d_b.data(), d_c.data(), static_cast<int>(m), static_cast<int>(n), static_cast<int>(k));
      labkit::cuda::check_launch(v.name);
      return;
    }
    throw labkit::Error("lab7 has no version '" + std::string(variant) + "'");
  }

  std::vector<labkit::ArrayRef> inputs() override { return {labkit::ref("a", a, {m, k}), labkit::ref("b", b, {k, n})}; }
  std::vector<labkit::ArrayRef> outputs() override { return {download("c", d_c, c, {m, n})}; }
};

}  // namespace

LABKIT_PROBLEM(MatrixMultiply)
