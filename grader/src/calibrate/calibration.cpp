#include "calibrate/calibration.h"

#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

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
  machine.threads = static_cast<int>(std::thread::hardware_concurrency());
  return machine;
}

std::string machine_id() {
  const MachineInfo machine = describe_machine();
  const std::string key = machine.hostname + "\n" + machine.cpu + "\n" + std::to_string(machine.threads);
  return "host-" + sha256_hex(std::span(reinterpret_cast<const std::byte*>(key.data()), key.size())).substr(0, 12);
}

fs::path calibration_path(const Environment& env) { return env.cache / "calibration" / (machine_id() + ".json"); }

std::optional<CpuCalibration> load_calibration(const Environment& env) {
  std::ifstream in(calibration_path(env));
  if (!in) return std::nullopt;
  try {
    json data = json::parse(in);
    CpuCalibration c;
    c.threads = data.at("threads").get<int>();
    c.bandwidth_1t_gbps = data.at("bandwidth_1t_gbps").get<double>();
    c.bandwidth_all_gbps = data.at("bandwidth_all_gbps").get<double>();
    c.peak_fp64_gflops_1t = data.at("peak_fp64_gflops_1t").get<double>();
    c.peak_fp64_gflops_all = data.at("peak_fp64_gflops_all").get<double>();
    return c;
  } catch (const std::exception&) {
    return std::nullopt;  // a damaged file is as good as none: calibrate again
  }
}

CpuCalibration run_calibration(const Environment& env) {
  const fs::path dir = env.cache / "calibration";
  fs::create_directories(dir);
  const fs::path program = dir / ("cpu_calibrate-" + machine_id());
  ToolResult build = run_tool({env.cxx, "-std=c++20", "-O3", "-march=native", "-fopenmp",
                               (env.root / "grader" / "calibrate" / "cpu_calibrate.cpp").string(), "-o", program.string()},
                              dir, 300);
  if (!build.ok()) throw std::runtime_error("cannot build the calibration program:\n" + build.output);
  ToolResult run = run_tool({program.string()}, dir, 300);
  if (!run.ok()) throw std::runtime_error("the calibration program failed:\n" + run.output);

  json data = json::parse(run.output);
  CpuCalibration c;
  c.threads = data.at("threads").get<int>();
  c.bandwidth_1t_gbps = data.at("bandwidth_1t_gbps").get<double>();
  c.bandwidth_all_gbps = data.at("bandwidth_all_gbps").get<double>();
  c.peak_fp64_gflops_1t = data.at("peak_fp64_gflops_1t").get<double>();
  c.peak_fp64_gflops_all = data.at("peak_fp64_gflops_all").get<double>();

  data["machine_id"] = machine_id();
  data["cpu"] = cpu_model();
  data["hostname"] = host_name();
  // Write then rename, so a grader reading it never sees half a file.
  const fs::path path = calibration_path(env);
  const fs::path temporary = path.string() + ".tmp" + std::to_string(::getpid());
  std::ofstream(temporary) << data.dump(2) << "\n";
  fs::rename(temporary, path);
  return c;
}

void attach_calibration(MachineInfo& machine, const CpuCalibration& c) {
  machine.calibrated = true;
  machine.bandwidth_1t_gbps = c.bandwidth_1t_gbps;
  machine.bandwidth_all_gbps = c.bandwidth_all_gbps;
  machine.peak_fp64_gflops_1t = c.peak_fp64_gflops_1t;
  machine.peak_fp64_gflops_all = c.peak_fp64_gflops_all;
}

}  // namespace grader
