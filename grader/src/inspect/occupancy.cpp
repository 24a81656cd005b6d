// occupancy.cpp: theoretical occupancy from the documented formula (CUDA C Programming Guide, "Occupancy"; the
// Occupancy Calculator's rules), for a machine without a GPU to ask: how many blocks of a kernel fit on one
// multiprocessor at once, limited by its warps, its registers and its shared memory.
#include <algorithm>

#include "inspect/facts.h"

namespace grader {

namespace {

int round_up(int value, int unit) { return unit <= 0 ? value : (value + unit - 1) / unit * unit; }

}  // namespace

GpuLimits limits_for_arch(const std::string& gpu_arch) {
  GpuLimits limits;  // sm_90 (H100, H200)
  if (gpu_arch == "sm_80") {
    limits.shared_per_sm = 167936;  // 164 KiB
  } else if (gpu_arch == "sm_86" || gpu_arch == "sm_89") {
    limits.max_threads_per_sm = 1536;
    limits.max_warps_per_sm = 48;
    limits.max_blocks_per_sm = gpu_arch == "sm_86" ? 16 : 24;
    limits.shared_per_sm = 102400;  // 100 KiB
  }
  return limits;
}

Occupancy theoretical_occupancy(int registers, int shared_bytes, int block_threads, const GpuLimits& limits) {
  Occupancy result;
  result.block_threads = block_threads;
  if (block_threads <= 0) return result;
  const int warps_per_block = (block_threads + limits.warp_size - 1) / limits.warp_size;
  struct Limit {
    int blocks;
    const char* name;
  };
  std::vector<Limit> limits_found = {
      {limits.max_blocks_per_sm, "blocks per SM"},
      {limits.max_warps_per_sm / warps_per_block, "threads per SM"},
  };
  if (registers > 0) {
    const int per_warp = round_up(std::max(registers, 1) * limits.warp_size, limits.register_allocation_unit);
    const int warps = limits.registers_per_sm / per_warp;
    limits_found.push_back({warps / warps_per_block, "registers"});
  }
  const int shared = round_up(std::max(shared_bytes, 0) + limits.shared_reserved_per_block, limits.shared_allocation_unit);
  limits_found.push_back({limits.shared_per_sm / shared, "shared memory"});
  const Limit* binding = &limits_found.front();
  for (const auto& limit : limits_found)
    if (limit.blocks < binding->blocks) binding = &limit;
  result.blocks_per_sm = std::max(binding->blocks, 0);
  result.limited_by = binding->name;
  result.fraction = static_cast<double>(result.blocks_per_sm * warps_per_block) / limits.max_warps_per_sm;
  return result;
}

}  // namespace grader
