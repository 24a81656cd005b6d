#include "measure/ceilings.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "measure/statistics.h"

namespace grader {

namespace {

std::string fixed(double value, int digits) {
  std::ostringstream text;
  text.precision(digits);
  text << std::fixed << value;
  return text.str();
}

std::string reached(const Timing& judge, double rate, const char* unit) {
  return judge.label + " reached " + fixed(rate, 1) + " " + unit + " in this grading";
}

// "read-only memory bandwidth (1 thread, 20.6 GB/s)" and "judge read_a reached 23.1 GB/s in this grading" ->
// "read-only memory bandwidth (1 thread, 20.6 GB/s; judge read_a reached 23.1 GB/s in this grading)".
std::string with_reached(const std::string& calibrated, const std::string& reached) {
  if (reached.empty()) return calibrated;
  if (!calibrated.empty() && calibrated.back() == ')')
    return calibrated.substr(0, calibrated.size() - 1) + "; " + reached + ")";
  return calibrated + " (" + reached + ")";
}

}  // namespace

std::optional<Ceilings> roofline_ceilings(const PerformanceItem& item, const Variables& scope, bool gpu_lab,
                                          const std::optional<Calibration>& calibration) {
  if (!calibration) return std::nullopt;
  Ceilings c;
  if (gpu_lab) {
    if (!calibration->gpu) return std::nullopt;
    const auto& gpu = *calibration->gpu;
    const bool fp32 = item.precision == "fp32";
    const double gbps = item.read_only_memory ? gpu.read_bandwidth_gbps : gpu.bandwidth_gbps;
    c.bytes_per_second = gbps * 1e9;
    c.flops_per_second = (fp32 ? gpu.sgemm_tflops : gpu.dgemm_tflops) * 1e12;
    c.memory_label = std::string(item.read_only_memory ? "read-only" : "read-write") + " device memory bandwidth (" +
                     fixed(gbps, 0) + " GB/s)";
    c.compute_label = std::string(fp32 ? "FP32 (cuBLAS SGEMM, " : "FP64 (cuBLAS DGEMM, ") +
                      fixed(fp32 ? gpu.sgemm_tflops : gpu.dgemm_tflops, 1) + " TFLOP/s)";
    c.possible_bytes_per_second = c.bytes_per_second;
    c.possible_flops_per_second = c.flops_per_second;
    return c;
  }
  const double threads_used = std::clamp(item.cpu_threads.evaluate(scope), 1.0, std::max(1.0, scope.at("threads")));
  const bool one_thread = threads_used <= 1;
  const auto& cpu = calibration->cpu;
  const bool read = item.read_only_memory;
  const double gbps_1t = read ? cpu.read_bandwidth_1t_gbps : cpu.bandwidth_1t_gbps;
  const double gbps = one_thread ? gbps_1t : (read ? cpu.read_bandwidth_all_gbps : cpu.bandwidth_all_gbps);
  const double gflops = one_thread ? cpu.peak_fp64_gflops_1t : cpu.peak_fp64_gflops_all;
  const std::string threads_label = one_thread ? "1 thread" : "all threads";
  c.bytes_per_second = gbps * 1e9;
  c.flops_per_second = gflops * 1e9;
  c.memory_label = std::string(read ? "read-only" : "read-write") + " memory bandwidth (" + threads_label + ", " +
                   fixed(gbps, 1) + " GB/s)";
  c.compute_label = "FP64 peak (" + threads_label + ", " + fixed(gflops, 1) + " GFLOP/s)";
  c.possible_bytes_per_second = std::max(gbps, threads_used * gbps_1t) * 1e9;
  c.possible_flops_per_second = std::max(gflops, threads_used * cpu.peak_fp64_gflops_1t) * 1e9;
  return c;
}

void raise_to_judge_rate(const Timing& judge, Ceilings& ceilings) {
  if (std::isfinite(judge.gbps) && judge.gbps * 1e9 > ceilings.bytes_per_second) {
    ceilings.bytes_per_second = judge.gbps * 1e9;
    ceilings.possible_bytes_per_second = std::max(ceilings.possible_bytes_per_second, ceilings.bytes_per_second);
    ceilings.memory_reached = reached(judge, judge.gbps, "GB/s");
  }
  if (std::isfinite(judge.gflops) && judge.gflops * 1e9 > ceilings.flops_per_second) {
    ceilings.flops_per_second = judge.gflops * 1e9;
    ceilings.possible_flops_per_second = std::max(ceilings.possible_flops_per_second, ceilings.flops_per_second);
    ceilings.compute_reached = reached(judge, judge.gflops, "GFLOP/s");
  }
}

void fill_rates(const PerformanceItem& item, const Variables& scope, Timing& timing) {
  const Summary summary = summarize(timing.seconds);
  timing.median = summary.median;
  timing.q1 = summary.q1;
  timing.q3 = summary.q3;
  if (timing.median > 0) {
    if (item.flops) timing.gflops = item.flops->evaluate(scope) / timing.median / 1e9;
    if (item.bytes) timing.gbps = item.bytes->evaluate(scope) / timing.median / 1e9;
  }
}

void derive_speedup(Measurement& m) {
  m.speedup = m.baseline.median / m.candidate.median;
  m.speedup_low = m.candidate.q3 > 0 ? m.baseline.q1 / m.candidate.q3 : 0;
  m.speedup_high = m.candidate.q1 > 0 ? m.baseline.q3 / m.candidate.q1 : 0;
}

void place_on_roofline(const PerformanceItem& item, const Variables& scope, const Ceilings& ceilings, Measurement& m) {
  m.ceiling_gbps = ceilings.bytes_per_second / 1e9;
  m.ceiling_gflops = ceilings.flops_per_second / 1e9;
  m.memory_ceiling = ceilings.memory_label;
  m.compute_ceiling = ceilings.compute_label;
  m.memory_reached = ceilings.memory_reached;
  m.compute_reached = ceilings.compute_reached;
  if (!item.flops && !item.bytes) return;
  // The time this machine needs at least, over the time taken.
  const double bytes = item.bytes ? item.bytes->evaluate(scope) : 0;
  const double flops = item.flops ? item.flops->evaluate(scope) : 0;
  const double memory_floor = bytes / ceilings.bytes_per_second;
  const double compute_floor = flops / ceilings.flops_per_second;
  m.roofline_bound = memory_floor >= compute_floor ? with_reached(ceilings.memory_label, ceilings.memory_reached)
                                                   : with_reached(ceilings.compute_label, ceilings.compute_reached);
  m.roofline_fraction = std::max(memory_floor, compute_floor) / m.candidate.median;
  const double fewest_seconds =
      std::max(bytes / ceilings.possible_bytes_per_second, flops / ceilings.possible_flops_per_second);
  m.possible_fraction = fewest_seconds / m.candidate.median;
}

}  // namespace grader
