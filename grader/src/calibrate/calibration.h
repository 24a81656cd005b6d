// calibration.h: this machine's ceilings (memory bandwidth, FP64 peak), measured once by
// `grader calibrate` and kept per machine, so reports can place a result on this machine's roofline.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.h"
#include "report/report.h"

namespace grader {

// Memory ceilings come in two kinds: read-write (copy, triad: what a kernel that writes as much as it reads
// can reach) and read-only (a dot product: what a kernel that only reads can reach, often far more). An
// item says which applies (`memory = "read"` in lab.toml); holding a read-only kernel to the read-write
// ceiling would show honest code above 100% of its roofline.
struct CpuCalibration {
  int threads = 0;
  double bandwidth_1t_gbps = 0;   // read-write
  double bandwidth_all_gbps = 0;
  double read_bandwidth_1t_gbps = 0;
  double read_bandwidth_all_gbps = 0;
  double peak_fp64_gflops_1t = 0;
  double peak_fp64_gflops_all = 0;
  int rounds = 0;       // measurement rounds until no ceiling moved by more than 3%
  bool stable = false;  // false: the rounds ran out first (another program competing for the cores)
  // The all-thread figures were timed while other programs had the cores (they took more than a tenth of
  // this process's CPUs, by /proc/stat): those figures, and what is derived from them, cannot be trusted.
  bool busy = false;
  double others_share = 0;  // that share, in the last round (0 to 1)
};

// Measured by grader/calibrate/gpu_calibrate.cu: a device-to-device copy (read-write), a read-only sum,
// cuBLAS GEMM rates (FP32 without TF32, FP64), and pinned host-device copies.
struct GpuCalibration {
  std::string name;
  std::string arch;
  double bandwidth_gbps = 0;       // read-write: bytes read + written per second
  double read_bandwidth_gbps = 0;  // read-only
  double sgemm_tflops = 0;
  double dgemm_tflops = 0;
  double h2d_pinned_gbps = 0;
  double d2h_pinned_gbps = 0;
  int rounds = 0;
  bool stable = false;
};

struct Calibration {
  CpuCalibration cpu;
  std::optional<GpuCalibration> gpu;  // absent on machines without a CUDA GPU (or without nvcc)
};

// "host-<hash of hostname, CPU model and thread count>": a calibration is only valid on the machine
// (and in the container shape) that measured it.
std::string machine_id();
MachineInfo describe_machine();  // hostname, CPU model, threads; no calibration figures

std::filesystem::path calibration_path(const Environment& env);
std::optional<Calibration> load_calibration(const Environment& env);

// Builds and runs grader/calibrate/cpu_calibrate.cpp (a few seconds) and, where nvcc and a GPU are present and
// `measure_gpu`, grader/calibrate/gpu_calibrate.cu on CUDA's device 0; stores the result. A grading that knows its
// GPU leaves that out and measures the GPU by UUID (run_gpu_calibrations). Throws std::runtime_error if it cannot
// build or run.
Calibration run_calibration(const Environment& env, bool measure_gpu = true);

// Each GPU of a node on its own (`grader batch --gpus`, `grader calibrate --gpus`): GPUs of one model still differ a
// little, so each is calibrated and kept by its UUID, <cache>/calibration/<uuid>.json.
std::filesystem::path gpu_calibration_path(const Environment& env, const std::string& uuid);
std::optional<GpuCalibration> load_gpu_calibration(const Environment& env, const std::string& uuid);
// Builds grader/calibrate/gpu_calibrate.cu once and runs it on each GPU in turn (CUDA_VISIBLE_DEVICES=<uuid>),
// storing each. Throws std::runtime_error if it cannot build or run.
std::vector<GpuCalibration> run_gpu_calibrations(const Environment& env, const std::vector<std::string>& uuids);
// The machine's GPU figures (run_calibration's, of CUDA's device 0) kept for that GPU by its UUID as well, so that
// the first grading on it does not calibrate it again (7.4 s on an H100, right after `grader calibrate`). False, and
// nothing kept, where the machine's calibration holds no GPU figures.
bool keep_machine_gpu_calibration(const Environment& env, const std::string& uuid);

// What all threads reach against one on the FP64 kernel right now: the CPU calibration program, kept by
// run_calibration, run with `--probe` (a tenth of a second). Set against the calibrated ratio it tells a
// machine that is giving a multi-threaded measurement fewer cores than it has, where nothing inside the VM
// shows why (a neighbour on the host's cores, a hypervisor taking a vCPU away without reporting steal
// time). nullopt when the program is not here (a calibration from an older grader) or fails.
std::optional<double> probe_cpu_scaling(const Environment& env);

// Copies the calibration's figures into `machine`.
void attach_calibration(MachineInfo& machine, const Calibration& calibration);

}  // namespace grader
