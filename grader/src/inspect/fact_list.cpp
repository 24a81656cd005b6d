#include "inspect/fact_list.h"

#include <cmath>
#include <cstdio>

namespace grader {

const std::vector<FactDefinition>& fact_definitions() {
  using S = FactSource;
  using F = FactFormat;
  static const std::vector<FactDefinition> facts = {
      // CPU code: the hot loop (the innermost loop with the most floating-point arithmetic the variant reaches)
      {"vector_bits", "vector width of the hot loop", S::cpu_code, F::bits},
      {"fp_scalar", "scalar FP instructions in the hot loop", S::cpu_code, F::count},
      {"fp_packed", "packed (SIMD) FP instructions in the hot loop", S::cpu_code, F::count},
      {"fma", "FMA instructions in the hot loop", S::cpu_code, F::count},
      {"loads_per_fma", "loads per FMA in the hot loop", S::cpu_code, F::ratio},
      {"accumulators", "independent accumulators in the hot loop", S::cpu_code, F::count},
      {"hot_loop_instructions", "instructions in the hot loop", S::cpu_code, F::count},
      {"openmp_regions", "OpenMP parallel regions", S::cpu_code, F::count},
      {"functions", "functions the variant reaches", S::cpu_code, F::count},
      // CUDA code: over the kernels the variant can launch
      {"kernels", "kernels it can launch", S::gpu_code, F::count},
      {"async_copies", "asynchronous copies (cudaMemcpyAsync), 1 if any", S::gpu_code, F::count},
      {"creates_streams", "creates streams (cudaStreamCreate), 1 if so", S::gpu_code, F::count},
      {"registers", "registers per thread (most of its kernels)", S::gpu_code, F::count},
      {"spill_bytes", "bytes spilled to local memory", S::gpu_code, F::bytes},
      {"shared_bytes", "static shared memory per block", S::gpu_code, F::bytes},
      {"shared_loads", "shared-memory loads", S::gpu_code, F::count},
      {"shared_stores", "shared-memory stores", S::gpu_code, F::count},
      {"barriers", "barriers (__syncthreads)", S::gpu_code, F::count},
      {"shuffles", "warp shuffles", S::gpu_code, F::count},
      {"atomics", "atomics", S::gpu_code, F::count},
      {"global_loads_scalar", "global loads, one element", S::gpu_code, F::count},
      {"global_loads_v2", "global loads, two elements (v2)", S::gpu_code, F::count},
      {"global_loads_v4", "global loads, four elements (v4)", S::gpu_code, F::count},
      {"global_load_bits", "widest global load", S::gpu_code, F::bits},
      {"global_store_bits", "widest global store", S::gpu_code, F::bits},
      {"fp32", "FP32 arithmetic instructions", S::gpu_code, F::count},
      {"fp64", "FP64 arithmetic instructions", S::gpu_code, F::count},
      {"tensor", "tensor-core instructions (mma)", S::gpu_code, F::count},
      {"tf32", "TF32 conversions", S::gpu_code, F::count},
      {"occupancy", "theoretical occupancy (lowest of its kernels)", S::gpu_code, F::percent},
      // CUDA counters: Nsight Compute on one extra call, outside the timed rounds (inspect/counters.h), over the
      // kernels that call launched
      {"profiled_kernels", "kernels the profiled call ran (ncu)", S::gpu_counter, F::count},
      {"dram_throughput", "DRAM throughput, share of peak (ncu)", S::gpu_counter, F::percent},
      {"sectors_per_load", "sectors per global load request (ncu)", S::gpu_counter, F::ratio},
      {"sectors_per_store", "sectors per global store request (ncu)", S::gpu_counter, F::ratio},
      {"bank_conflicts", "shared-memory bank conflicts (ncu)", S::gpu_counter, F::count},
      {"launch_occupancy", "theoretical occupancy of the launch seen (ncu)", S::gpu_counter, F::percent},
      {"achieved_occupancy", "achieved occupancy (ncu)", S::gpu_counter, F::percent},
      {"thread_efficiency", "threads active per warp instruction, of 32 (ncu)", S::gpu_counter, F::ratio},
      {"fma_pipe", "FP32 FMA pipe busy (ncu)", S::gpu_counter, F::percent},
      {"tensor_executed", "tensor-core instructions executed (ncu)", S::gpu_counter, F::count},
  };
  return facts;
}

const FactDefinition* find_fact(std::string_view key) {
  for (const auto& fact : fact_definitions())
    if (fact.key == key) return &fact;
  return nullptr;
}

bool is_fact_variable(std::string_view name) {
  if (name.substr(0, reference_prefix.size()) == reference_prefix) name.remove_prefix(reference_prefix.size());
  return find_fact(name) != nullptr;
}

std::string format_fact(const FactDefinition& fact, double value) {
  char text[64];
  switch (fact.format) {
    case FactFormat::count:
      std::snprintf(text, sizeof text, "%.0f", value);
      return text;
    case FactFormat::ratio:
      std::snprintf(text, sizeof text, "%.2f", value);
      return text;
    case FactFormat::bytes:
      std::snprintf(text, sizeof text, "%.0f B", value);
      return text;
    case FactFormat::percent:
      std::snprintf(text, sizeof text, "%.0f%%", 100 * value);
      return text;
    case FactFormat::bits:
      if (fact.key == "vector_bits") {
        if (value <= 0) return "no FP arithmetic";
        if (value <= 64) return "scalar";
        if (value <= 128) return "xmm (128-bit)";
        if (value <= 256) return "ymm (256-bit)";
        return "zmm (512-bit)";
      }
      if (value <= 0) return "none";
      std::snprintf(text, sizeof text, "%.0f-bit", value);
      return text;
  }
  return {};
}

}  // namespace grader
