#include "core/unique_name.h"
#include "calibrate/calibration.h"
#include "calibrate/interference.h"

#include <unistd.h>

#include <cctype>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "build/build.h"
#include "core/cpus.h"
#include "core/tool.h"
#include "data/sha256.h"

namespace grader {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown CPU";
}

std::string host_name() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace

MachineInfo describe_machine() {
  MachineInfo machine;
  machine.hostname = host_name();
  machine.cpu = cpu_model();
  machine.threads = usable_cpus();
  return machine;
}

std::string machine_id() {
  const MachineInfo machine = describe_machine();
  const std::string key = machine.hostname + "\n" + machine.cpu + "\n" + std::to_string(machine.threads);
  return "host-" + sha256_hex(std::span(reinterpret_cast<const std::byte*>(key.data()), key.size())).substr(0, 12);
}

fs::path calibration_path(const Environment& env) { return env.cache / "calibration" / (machine_id() + ".json"); }

namespace {

CpuCalibration cpu_from_json(const json& data) {
  CpuCalibration c;
  c.threads = data.at("threads").get<int>();
  c.bandwidth_1t_gbps = data.at("bandwidth_1t_gbps").get<double>();
  c.bandwidth_all_gbps = data.at("bandwidth_all_gbps").get<double>();
  c.read_bandwidth_1t_gbps = data.at("read_bandwidth_1t_gbps").get<double>();
  c.read_bandwidth_all_gbps = data.at("read_bandwidth_all_gbps").get<double>();
  c.rounds = data.at("rounds").get<int>();
  c.stable = data.at("stable").get<bool>();
  c.busy = data.at("busy").get<bool>();
  c.others_share = data.value("others_share", 0.0);  // absent from calibrations kept before it was measured
  c.peak_fp64_gflops_1t = data.at("peak_fp64_gflops_1t").get<double>();
  c.peak_fp64_gflops_all = data.at("peak_fp64_gflops_all").get<double>();
  return c;
}

GpuCalibration gpu_from_json(const json& data) {
  GpuCalibration g;
  g.name = data.at("gpu").get<std::string>();
  g.arch = data.at("gpu_arch").get<std::string>();
  g.bandwidth_gbps = data.at("gpu_bandwidth_gbps").get<double>();
  g.read_bandwidth_gbps = data.at("gpu_read_bandwidth_gbps").get<double>();
  g.sgemm_tflops = data.at("gpu_sgemm_tflops").get<double>();
  g.dgemm_tflops = data.at("gpu_dgemm_tflops").get<double>();
  g.h2d_pinned_gbps = data.at("gpu_h2d_pinned_gbps").get<double>();
  g.d2h_pinned_gbps = data.at("gpu_d2h_pinned_gbps").get<double>();
  g.rounds = data.at("gpu_rounds").get<int>();
  g.stable = data.at("gpu_stable").get<bool>();
  return g;
}

// Compiles `source` with `compiler_argv` + source + -o program.
void build_program(const std::vector<std::string>& compiler_argv, const fs::path& source, const fs::path& program,
                   const fs::path& dir, const char* what) {
  std::vector<std::string> argv = compiler_argv;
  argv.insert(argv.end(), {source.string(), "-o", program.string()});
  ToolResult build = run_tool(argv, dir, 600);
  if (!build.ok()) throw std::runtime_error(std::string("cannot build the ") + what + " calibration program:\n" + build.output);
}

// The calibration programs' environment: the grader's, with OpenMP told to use the CPUs the grader counts as
// `threads` (core/cpus.h). A shell's OMP_NUM_THREADS=1, usual on clusters, would make "all threads" one thread,
// and a container's CPU quota is something OpenMP does not read.
std::vector<std::string> calibration_environment() {
  std::vector<std::string> environment;
  for (char** entry = environ; *entry != nullptr; ++entry)
    if (std::string_view(*entry).rfind("OMP_NUM_THREADS=", 0) != 0) environment.emplace_back(*entry);
  environment.push_back("OMP_NUM_THREADS=" + std::to_string(usable_cpus()));
  return environment;
}

// Runs a calibration program (`argv`) and parses the one JSON line it prints.
json run_program(const std::vector<std::string>& argv, const fs::path& dir, const std::string& what) {
  ToolOptions options;
  options.timeout_seconds = 600;
  options.environment = calibration_environment();
  ToolResult run = run_tool(argv, dir, options);
  if (!run.ok()) throw std::runtime_error("the " + what + " calibration program failed:\n" + run.output);
  auto brace = run.output.rfind('{');
  if (brace == std::string::npos) throw std::runtime_error("the " + what + " calibration printed no figures:\n" + run.output);
  return json::parse(run.output.substr(brace));
}

json build_and_run(const std::vector<std::string>& compiler_argv, const fs::path& source, const fs::path& program,
                   const fs::path& dir, const char* what) {
  build_program(compiler_argv, source, program, dir, what);
  return run_program({program.string()}, dir, what);
}

// A UUID as a file name: only its letters, digits and dashes.
std::string file_safe(const std::string& uuid) {
  std::string safe;
  for (char c : uuid) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return safe;
}

}  // namespace

std::optional<Calibration> load_calibration(const Environment& env) {
  std::ifstream in(calibration_path(env));
  if (!in) return std::nullopt;
  try {
    json data = json::parse(in);
    Calibration c;
    c.cpu = cpu_from_json(data);
    if (data.contains("gpu")) c.gpu = gpu_from_json(data);
    return c;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged file, or one from an older grader, is as good as none: calibrate again
  }
}

namespace {

fs::path cpu_program_path(const Environment& env) { return env.cache / "calibration" / ("cpu_calibrate-" + machine_id()); }

}  // namespace

std::optional<double> probe_cpu_scaling(const Environment& env) {
  const fs::path program = cpu_program_path(env);
  std::error_code error;
  if (!fs::is_regular_file(program, error)) return std::nullopt;
  // A program built by an older grader knows no --probe and would calibrate in full: the timeout ends it.
  ToolOptions options;
  options.timeout_seconds = 5;
  options.environment = calibration_environment();
  const ToolResult run = run_tool({program.string(), "--probe"}, program.parent_path(), options);
  if (!run.ok()) return std::nullopt;
  try {
    const auto brace = run.output.rfind('{');
    if (brace == std::string::npos) return std::nullopt;
    const json data = json::parse(run.output.substr(brace));
    if (!data.contains("cpu_scaling_now")) return std::nullopt;
    return data.at("cpu_scaling_now").get<double>();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Calibration run_calibration(const Environment& env, bool measure_gpu) {
  const fs::path dir = env.cache / "calibration";
  fs::create_directories(dir);
  const fs::path sources = env.root / "grader" / "calibrate";
  json data = build_and_run({env.cxx, "-std=c++20", "-O3", "-march=native", "-fopenmp"}, sources / "cpu_calibrate.cpp",
                            cpu_program_path(env), dir, "CPU");
  Calibration c;
  c.cpu = cpu_from_json(data);

  const std::string arch = detect_gpu_arch();
  if (measure_gpu && env.nvcc && !arch.empty()) {
    json gpu = build_and_run({*env.nvcc, "-std=c++20", "-O3", "-arch=" + arch, "-lcublas"}, sources / "gpu_calibrate.cu",
                             dir / ("gpu_calibrate-" + machine_id()), dir, "GPU");
    c.gpu = gpu_from_json(gpu);
    data.update(gpu);
  }

  // What may run beside a timing was measured on the machine as it was then: measured again by the next batch.
  std::error_code stale;
  fs::remove(interference_path(env), stale);
  data["machine_id"] = machine_id();
  data["cpu"] = cpu_model();
  data["hostname"] = host_name();
  // Write then rename, so a grader reading it never sees half a file.
  const fs::path path = calibration_path(env);
  const fs::path temporary = path.string() + ".tmp-" + unique_suffix();
  std::ofstream(temporary) << data.dump(2) << "\n";
  fs::rename(temporary, path);
  return c;
}

fs::path gpu_calibration_path(const Environment& env, const std::string& uuid) {
  return env.cache / "calibration" / (file_safe(uuid) + ".json");
}

std::optional<GpuCalibration> load_gpu_calibration(const Environment& env, const std::string& uuid) {
  std::ifstream in(gpu_calibration_path(env, uuid));
  if (!in) return std::nullopt;
  try {
    const json data = json::parse(in);
    if (data.value("uuid", "") != uuid) return std::nullopt;  // another GPU's, copied here: calibrate again
    return gpu_from_json(data);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

namespace {

// A GPU's figures (gpu_calibrate.cu's JSON) kept as <cache>/calibration/<uuid>.json, written then renamed.
void store_gpu_figures(const Environment& env, const std::string& uuid, json data) {
  data["uuid"] = uuid;
  data["machine_id"] = machine_id();
  data["hostname"] = host_name();
  const fs::path path = gpu_calibration_path(env, uuid);
  const fs::path temporary = path.string() + ".tmp-" + unique_suffix();
  std::ofstream(temporary) << data.dump(2) << "\n";
  fs::rename(temporary, path);
}

}  // namespace

bool keep_machine_gpu_calibration(const Environment& env, const std::string& uuid) {
  std::ifstream in(calibration_path(env));
  if (!in) return false;
  json figures;
  try {
    const json data = json::parse(in);
    if (!data.contains("gpu")) return false;
    for (const auto& [key, value] : data.items())
      if (key == "gpu" || key.rfind("gpu_", 0) == 0) figures[key] = value;
    gpu_from_json(figures);  // every figure there, or none kept
  } catch (const std::exception&) {
    return false;
  }
  store_gpu_figures(env, uuid, figures);
  return true;
}

std::vector<GpuCalibration> run_gpu_calibrations(const Environment& env, const std::vector<std::string>& uuids) {
  const std::string arch = detect_gpu_arch();
  if (!env.nvcc || arch.empty()) throw std::runtime_error("no GPU to calibrate here (no nvcc, or nvidia-smi found no GPU)");
  const fs::path dir = env.cache / "calibration";
  fs::create_directories(dir);
  const fs::path program = dir / ("gpu_calibrate-" + machine_id());
  build_program({*env.nvcc, "-std=c++20", "-O3", "-arch=" + arch, "-lcublas"}, env.root / "grader" / "calibrate" / "gpu_calibrate.cu",
                program, dir, "GPU");
  std::vector<GpuCalibration> calibrations;
  // One GPU after another: their host-to-device copies share the host's memory and PCIe switches.
  for (const auto& uuid : uuids) {
    json data = run_program({"/usr/bin/env", "CUDA_VISIBLE_DEVICES=" + uuid, program.string()}, dir, "GPU " + uuid);
    calibrations.push_back(gpu_from_json(data));
    store_gpu_figures(env, uuid, data);
  }
  return calibrations;
}

void attach_calibration(MachineInfo& machine, const Calibration& c) {
  machine.calibrated = true;
  machine.bandwidth_1t_gbps = c.cpu.bandwidth_1t_gbps;
  machine.bandwidth_all_gbps = c.cpu.bandwidth_all_gbps;
  machine.read_bandwidth_1t_gbps = c.cpu.read_bandwidth_1t_gbps;
  machine.read_bandwidth_all_gbps = c.cpu.read_bandwidth_all_gbps;
  machine.calibration_stable = c.cpu.stable && !c.cpu.busy && (!c.gpu || c.gpu->stable);
  machine.peak_fp64_gflops_1t = c.cpu.peak_fp64_gflops_1t;
  machine.peak_fp64_gflops_all = c.cpu.peak_fp64_gflops_all;
  if (c.gpu) {
    machine.gpu = c.gpu->name;
    machine.gpu_bandwidth_gbps = c.gpu->bandwidth_gbps;
    machine.gpu_read_bandwidth_gbps = c.gpu->read_bandwidth_gbps;
    machine.gpu_sgemm_tflops = c.gpu->sgemm_tflops;
    machine.gpu_dgemm_tflops = c.gpu->dgemm_tflops;
  }
}

}  // namespace grader
