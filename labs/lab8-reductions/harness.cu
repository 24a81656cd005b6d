// harness.cu: lab 8's problem for the lab kit. Builds n floats in [-scale, scale) from the case's seed,
// uploads them, calls one reduction version on the device and hands the one-float sum back. Linked with the
// student's reductions.cu (the candidate) and with baseline.cu (the judge); see labkit/cuda.h.
//
// The versions live in one table below (dispatch and the hello listing both come from it):
//   interleaved_divergent ... atomic   the student's eight functions (reductions.h), in course order
//   baseline   judge only: the course's first version (interleaved, divergent), the yardstick of speedups
//   cub        judge only: cub::DeviceReduce::Sum, timed for the report (`compare = ["cub"]`)
// The judge-only versions are weak symbols that baseline.cu defines; the candidate has neither.
#include <labkit/labkit.h>
#include <labkit/cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "reductions.h"

extern "C" {
__attribute__((weak)) void lab8_judge_baseline(const float* in, std::int64_t n, float* out, float* scratch, int block);
__attribute__((weak)) void lab8_judge_cub(const float* in, std::int64_t n, float* out, float* scratch, int block);
}

namespace {

using labkit::cuda::DeviceBuffer;
using Reduce = void(const float*, std::int64_t, float*, float*, int);

struct Version {
  const char* name;
  Reduce* function;  // null: a judge-only version in the candidate
};

const std::vector<Version>& versions() {
  static const std::vector<Version> table = {
      {"interleaved_divergent", reduce_interleaved_divergent},
      {"interleaved", reduce_interleaved},
      {"sequential", reduce_sequential},
      {"first_add", reduce_first_add},
      {"unroll_last_warp", reduce_unroll_last_warp},
      {"warp_shuffle", reduce_warp_shuffle},
      {"multi_element", reduce_multi_element},
      {"atomic", reduce_atomic},
      {"baseline", lab8_judge_baseline},
      {"cub", lab8_judge_cub},
  };
  return table;
}

struct Reduction : labkit::CudaProblem {
  std::int64_t n = 0;
  int block = 256;
  std::vector<float> in, sum;
  DeviceBuffer<float> d_in, d_out, d_scratch;

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const auto& v : versions()) names.push_back(v.name);
    return names;
  }

  void setup(labkit::Case& c) override {
    n = c.params.integer("n");
    block = static_cast<int>(c.params.integer("block", 256));
    const double scale = c.params.real("scale", 1.0);
    if (n < 1) throw labkit::Error("lab8 needs n >= 1, got " + std::to_string(n));
    if (block < 64 || block > 1024 || (block & (block - 1)) != 0)
      throw labkit::Error("lab8's block must be a power of two from 64 to 1024, got " + std::to_string(block));
    // Mixed signs: the sum is ~sqrt(n) in size while the terms add up to ~n/2 in magnitude, so cancellation
    // is real and a lost or doubled block of elements shows.
    c.input("in", in, {n}, -scale, scale);
    d_in.upload(in);
    mirror("in", in, d_in);  // fresh inputs reach the device copy (labkit/cuda.h)
    d_out.resize(1);
    d_scratch.resize(static_cast<std::size_t>(reduction_scratch_floats(n)));
  }

  void poison() override {
    d_out.poison();
    d_scratch.poison();
  }

  void run(std::string_view variant) override {
    for (const auto& v : versions()) {
      if (variant != v.name) continue;
      if (v.function == nullptr)
        throw labkit::Error(std::string(v.name) + " is one of the judge's own versions; the candidate has none");
      v.function(d_in.data(), n, d_out.data(), d_scratch.data(), block);
      labkit::cuda::check_launch(v.name);
      return;
    }
    throw labkit::Error("lab8 has no version '" + std::string(variant) + "'");
  }

  // A sum depends on each element only a little, and the check allows 0.6 at the largest sizes: 1024 changed
  // elements move a stale sum by ~26 on average, so an answer remembered from an earlier call fails.
  int fresh_elements() const override { return 1024; }

  std::vector<labkit::ArrayRef> inputs() override { return {labkit::ref("in", in, {n})}; }
  std::vector<labkit::ArrayRef> outputs() override { return {download("sum", d_out, sum, {1})}; }
};

}  // namespace

LABKIT_PROBLEM(Reduction)
