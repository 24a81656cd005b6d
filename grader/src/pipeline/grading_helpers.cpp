// grading_helpers.cpp: what the pipeline's files share: machine variables, item parameters, measurement keys,
// tolerances, formatting.
#include <algorithm>
#include <sstream>

#include "core/cpus.h"
#include "pipeline/grading.h"

namespace grader::pipeline {

std::string compute_sanitizer_path(const Environment& env) {
  if (env.nvcc) {
    const fs::path beside = fs::path(*env.nvcc).parent_path() / "compute-sanitizer";
    if (fs::exists(beside)) return beside.string();
  }
  if (auto on_path = find_on_path("compute-sanitizer")) return *on_path;
  throw std::runtime_error("--sanitize needs compute-sanitizer (part of the CUDA toolkit) and none was found");
}

double seconds_since(steady::time_point start) { return std::chrono::duration<double>(steady::now() - start).count(); }

std::string fixed(double value, int digits) {
  std::ostringstream text;
  text.precision(digits);
  text << std::fixed << value;
  return text.str();
}

// The machine variables every expression may read. `cpu_scaling` and `memory_scaling` are what all threads
// reach against one thread by this machine's calibration (FP64 peak; read-only bandwidth), so a scaling
// tier can be derived from what the machine allows; until a calibration is loaded they are `threads`.
Variables machine_variables() {
  const double threads = usable_cpus();
  return {{"threads", threads}, {"cpu_scaling", threads}, {"memory_scaling", threads}};
}

// A calibration whose all-thread figures were timed on a busy machine says nothing about scaling: the tiers
// then stay as they would be on real, quiet cores (and the report warns about the calibration).
void add_calibrated_scaling(Variables& machine, const Calibration& calibration) {
  const CpuCalibration& cpu = calibration.cpu;
  if (cpu.busy) return;
  if (cpu.peak_fp64_gflops_1t > 0) machine["cpu_scaling"] = cpu.peak_fp64_gflops_all / cpu.peak_fp64_gflops_1t;
  if (cpu.read_bandwidth_1t_gbps > 0) machine["memory_scaling"] = cpu.read_bandwidth_all_gbps / cpu.read_bandwidth_1t_gbps;
}

// Whether grading this lab needs the machine calibrated: a roofline item, or a tier derived from the
// calibrated scaling.
bool needs_calibration(const LabSpec& spec) {
  for (const auto& item : spec.performance) {
    if (item.metric == Metric::roofline) return true;
    for (const auto& tier : item.tiers)
      for (const auto& name : tier.at.names())
        if (name == "cpu_scaling" || name == "memory_scaling") return true;
  }
  return false;
}

// The parameters a case declares, evaluated on this machine: only those are sent to the workers (a
// harness must not see `threads` unless its lab.toml asks for it).
Variables case_params(const std::vector<Param>& params, const Variables& machine) {
  const Variables all = evaluate_params(params, machine);
  Variables declared;
  for (const auto& param : params) declared[param.name] = all.at(param.name);
  return declared;
}

Variables with_overrides(Variables params, const std::vector<Param>& overrides, const Variables& machine) {
  Variables scope = machine;
  for (const auto& [name, value] : params) scope[name] = value;
  for (const auto& param : overrides) params[param.name] = param.value.evaluate(scope);
  return params;
}

// What determines a measurement: two items with the same key time exactly the same calls.
std::string measurement_key(const PerformanceItem& item) {
  std::string key = item.variant + "|" + item.baseline.variant + "|" +
                    (item.baseline.process == BaselineSpec::Process::judge ? "judge" : "candidate");
  auto add_params = [&](const std::vector<Param>& params) {
    for (const auto& p : params) key += "|" + p.name + "=" + p.value.text();
  };
  add_params(item.params);
  key += "|baseline";
  add_params(item.baseline.params);
  for (const auto& c : item.compare) key += "|compare=" + c;
  if (item.tolerance) key += "|tolerance=" + std::to_string(item.tolerance->rtol) + "," + std::to_string(item.tolerance->atol);
  // The roofline is placed when the item is timed: items held to different memory ceilings do not share it.
  if (item.read_only_memory) key += "|memory=read";
  // The cap and the bound are timed with the measurement.
  if (!item.baseline.cap.empty()) key += "|cap=" + item.baseline.cap;
  if (item.baseline.oracle) key += "|oracle";  // checked against the baseline's outputs, not the judge's replays
  if (!item.bound.empty()) key += "|bound=" + item.bound;
  return key;
}

const Tolerance& tolerance_for(const LabSpec& spec, const std::optional<Tolerance>& item,
                               const std::optional<Tolerance>& specific) {
  if (specific) return *specific;
  if (item) return *item;
  return spec.tolerance;
}

}  // namespace grader::pipeline
