// calibration.h: this machine's ceilings (memory bandwidth, FP64 peak), measured once by
// `grader calibrate` and kept per machine, so reports can place a result on this machine's roofline.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/environment.h"
#include "report/report.h"

namespace grader {

struct CpuCalibration {
  int threads = 0;
  double bandwidth_1t_gbps = 0;
  double bandwidth_all_gbps = 0;
  double peak_fp64_gflops_1t = 0;
  double peak_fp64_gflops_all = 0;
};

// "host-<hash of hostname, CPU model and thread count>": a calibration is only valid on the machine
// (and in the container shape) that measured it.
std::string machine_id();
MachineInfo describe_machine();  // hostname, CPU model, threads; no calibration figures

std::filesystem::path calibration_path(const Environment& env);
std::optional<CpuCalibration> load_calibration(const Environment& env);

// Builds and runs grader/calibrate/cpu_calibrate.cpp (a few seconds), stores the result. Throws
// std::runtime_error if it cannot build or run.
CpuCalibration run_calibration(const Environment& env);

// Copies the calibration's figures into `machine`.
void attach_calibration(MachineInfo& machine, const CpuCalibration& calibration);

}  // namespace grader
