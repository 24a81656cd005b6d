// ncu.h: Nsight Compute as the grader runs it (pipeline/counters_stage.cpp): which ncu, its version, the words that
// start a profiled worker under it, and its report read back as CSV by the grader, never by the profiled program.
//
//   std::string why;
//   std::optional<NcuTool> ncu = find_ncu(env, why);         // none: `why` says so in the report
//   launch.wrapper += ncu_profile_words(*ncu, dir / "counters");   // then the worker's executable
//   CounterReading reading = read_ncu_report(*ncu, dir / "counters.ncu-rep", what_the_run_printed);
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.h"
#include "inspect/counters.h"

namespace grader {

struct NcuTool {
  std::string path;                   // the ncu program
  std::string version;                // "2025.3.1.0", from `ncu --version`
  // The folders a box must show for it to run: its real program's, and NVIDIA's install folder where there is one
  // (/usr/local/cuda/bin/ncu is often a script that starts /opt/nvidia/nsight-compute/<version>/ncu).
  std::vector<std::filesystem::path> install_dirs;
};

// $GRADER_NCU (a test's stand-in, or a site's own ncu), else ncu beside nvcc, on PATH, in /usr/local/cuda/bin.
// Nothing, with `why_not` for the report, when there is none or `ncu --version` does not answer.
std::optional<NcuTool> find_ncu(const Environment& env, std::string& why_not);

// What goes before the worker's executable: ncu with the metrics of inspect/counters.h, counting only between the
// harness's cudaProfilerStart and Stop (the one profiled call), the clocks left alone, only the worker itself
// profiled, the report written to `report_base`.ncu-rep.
std::vector<std::string> ncu_profile_words(const NcuTool& ncu, const std::filesystem::path& report_base);

struct CounterReading {
  std::vector<KernelCounters> kernels;
  std::string unavailable;  // why none were read; empty when they were
};

// The report `ncu --import --csv --page raw` reads back (as the build user where the grader is root: the file came
// from a box the submission ran in). `run_output`: what the profiled run printed, for ncu's own error lines
// (ERR_NVGPUCTRPERM) when there is no report.
CounterReading read_ncu_report(const NcuTool& ncu, const std::filesystem::path& report, const std::string& run_output);

}  // namespace grader
