// counters.h: the GPU's hardware counters from one extra call of a timed item, read by Nsight Compute (ncu) in a
// profiled worker of the grader's (pipeline/counters_stage.cpp), never by the candidate, outside the timed rounds.
// This file is the reading: ncu's `--csv --page raw` text into one row per kernel the call launched, those rows
// summed up into facts named as inspect/fact_list.h lists them (the variables hints read), and the launch that was
// actually seen (block size, registers, theoretical occupancy) in words.
//
//   std::vector<KernelCounters> kernels = parse_ncu_raw_csv(text);   // ncu --import r.ncu-rep --csv --page raw
//   Variables facts = counter_variables(kernels);
//   facts.at("sectors_per_load")   // 4.0: each warp's load touched four 32-byte sectors (coalesced doubles: 8)
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "spec/expr.h"

namespace grader {

// The metrics every profiled call is asked for: the names, checked on sm_90 with ncu 2025.3.1.0
// (tests/gpu/ncu_counters.sh), plus the launch statistics and occupancy limits of the Launch Statistics and
// Occupancy sections, and each kernel's duration and instruction count (to weigh kernels of one call).
const std::vector<std::string_view>& profiled_metrics();
// profiled_metrics() joined with commas, as `ncu --metrics` takes them.
std::string profiled_metrics_argument();

// One kernel launch of the profiled call.
struct KernelCounters {
  std::string name;     // as ncu prints it, demangled: "gemv_warp_rows(double const*, double const*, double*, long, long)"
  std::string block;    // "(256, 1, 1)"
  std::string grid;     // "(4000, 1, 1)"
  std::map<std::string, double> metrics;  // by ncu's metric name; a metric ncu printed as n/a is absent
  double metric(std::string_view name, double otherwise = 0) const;
  bool has(std::string_view name) const { return metrics.count(std::string(name)) > 0; }
};

// ncu's raw page as CSV: a header row (ID, Process ID, ..., Kernel Name, ..., Block Size, Grid Size, ..., then one
// column per metric), an optional row of units, and one row per kernel. Lines ncu writes for people (==PROF==,
// ==WARNING==) are skipped; numbers may carry thousands separators. Throws std::runtime_error when the text has no
// such header (not ncu's raw page) or a row's width differs from the header's.
std::vector<KernelCounters> parse_ncu_raw_csv(std::string_view text);

// The call's facts from its kernels: DRAM throughput, achieved and theoretical occupancy, the FMA pipe's use,
// weighted by each kernel's duration; sectors per request as all sectors over all requests; bank conflicts and
// tensor instructions summed; threads per warp instruction weighted by instructions. A fact no kernel answered is
// left out, so a hint that names it does not hold. Empty for no kernels.
Variables counter_variables(const std::vector<KernelCounters>& kernels);

// The launch of the call's longest kernel as it ran, in words: "gemv_warp_rows: 4000 blocks of 256 threads, 32
// registers, 0 B shared; theoretical occupancy 100% (limited by warps), achieved 87%". Empty for no kernels.
std::string seen_launch(const std::vector<KernelCounters>& kernels);

// The kernel name without its parameter list (ncu prints the demangled signature).
std::string counters_kernel_name(const std::string& signature);

// What `ncu` printed, classified for the report: a run refused the GPU's counters (ERR_NVGPUCTRPERM), found no
// kernel to profile, or failed some other way (its first ==ERROR== line). Empty where nothing is wrong.
std::string ncu_failure(std::string_view output);

}  // namespace grader
