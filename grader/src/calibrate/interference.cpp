// interference.cpp: see interference.h.
#include "calibrate/interference.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "calibrate/calibration.h"
#include "core/cpus.h"
#include "core/tool.h"
#include "core/unique_name.h"
#include "core/utc_time.h"

namespace grader {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kProbeKernels[] = {"stream", "cache", "fma"};
// How long a probe load runs: past the timed probe's start-up (its arrays) and its half second of kernels.
constexpr double kLoadSeconds = 2.0;

fs::path interference_dir(const Environment& env) { return env.cache / "calibration"; }
fs::path probe_program_path(const Environment& env) { return interference_dir(env) / ("interference_probe-" + machine_id()); }

// The calling thread on `cpu` alone; what it starts inherits that.
void pin_this_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

using ProbeFigures = std::map<std::string, double>;  // kernel -> rate

ProbeFigures run_probe(const fs::path& program, int cpu) {
  const ToolResult run = run_tool({program.string(), "--cpu", std::to_string(cpu)}, program.parent_path(), 60);
  if (!run.ok()) throw std::runtime_error("the interference probe failed:\n" + run.output);
  const auto brace = run.output.rfind('{');
  if (brace == std::string::npos) throw std::runtime_error("the interference probe printed no figures:\n" + run.output);
  const json data = json::parse(run.output.substr(brace));
  return {{"stream", data.at("stream_gbps").get<double>()},
          {"cache", data.at("cache_gbps").get<double>()},
          {"fma", data.at("fma_gflops").get<double>()}};
}

// The probe on `timed` while `kind` runs on `others`, one load per CPU; the load starts first and is under way.
ProbeFigures probe_beside(const Environment& env, const fs::path& program, int timed, const std::string& kind,
                          const std::vector<int>& others) {
  std::atomic<bool> stop{false};
  std::vector<std::thread> loads;
  const fs::path source = env.root / "grader" / "calibrate" / "interference_probe.cpp";
  for (std::size_t i = 0; i < others.size(); ++i) {
    const int cpu = others[i];
    if (kind == "builds") {
      loads.emplace_back([&, cpu, i] {
        pin_this_thread(cpu);
        const std::string object = (interference_dir(env) / ("load-" + std::to_string(i) + "-" + unique_suffix() + ".o")).string();
        while (!stop) run_tool({env.cxx, "-std=c++17", "-O2", "-march=native", "-c", source.string(), "-o", object},
                               interference_dir(env), 120);
        std::error_code ignored;
        fs::remove(object, ignored);
      });
    } else {
      loads.emplace_back([&, cpu] { run_tool({program.string(), "--cpu", std::to_string(cpu), "--load", std::to_string(kLoadSeconds)},
                                             program.parent_path(), 60); });
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the compilers started, the probes' arrays touched
  ProbeFigures figures;
  std::exception_ptr failed;
  try {
    figures = run_probe(program, timed);
  } catch (...) {
    failed = std::current_exception();
  }
  stop = true;
  for (auto& load : loads) load.join();
  if (failed) std::rethrow_exception(failed);
  return figures;
}

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n == 0 ? 0 : n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Sibling rank of each CPU within its physical core: 0 for the first thread of a core, 1 for its hyperthread.
int sibling_rank(int cpu) {
  std::ifstream list("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list");
  std::string text;
  if (!std::getline(list, text)) return 0;
  std::vector<int> siblings;
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    const auto dash = part.find('-');
    try {
      const int first = std::stoi(part.substr(0, dash));
      const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
      for (int c = first; c <= last; ++c) siblings.push_back(c);
    } catch (const std::exception&) {
      return 0;
    }
  }
  std::sort(siblings.begin(), siblings.end());
  return static_cast<int>(std::find(siblings.begin(), siblings.end(), cpu) - siblings.begin());
}

json to_json(const Interference& m) {
  json loads = json::array();
  for (const auto& load : m.loads)
    loads.push_back({{"kind", load.kind}, {"cpus", load.cpus}, {"slowdown", load.slowdown}, {"worst", load.worst}});
  return {{"machine_id", m.machine_id}, {"cpus", m.cpus}, {"rounds", m.rounds}, {"noise", m.noise},
          {"stream_gbps", m.stream_gbps}, {"cache_gbps", m.cache_gbps}, {"fma_gflops", m.fma_gflops},
          {"loads", loads}, {"measured_at", m.measured_at}};
}

}  // namespace

const InterferenceLoad* Interference::find(const std::string& kind, int cpus) const {
  for (const auto& load : loads)
    if (load.kind == kind && load.cpus == cpus) return &load;
  return nullptr;
}

std::vector<int> cpus_by_core() {
  std::vector<int> cpus = affinity_cpus();
  cpus.resize(std::min<std::size_t>(cpus.size(), static_cast<std::size_t>(usable_cpus())));
  std::stable_sort(cpus.begin(), cpus.end(), [](int a, int b) { return sibling_rank(a) < sibling_rank(b); });
  return cpus;
}

fs::path interference_path(const Environment& env) { return interference_dir(env) / ("interference-" + machine_id() + ".json"); }

std::optional<Interference> load_interference(const Environment& env) {
  std::ifstream in(interference_path(env));
  if (!in) return std::nullopt;
  try {
    const json data = json::parse(in);
    Interference m;
    m.machine_id = data.at("machine_id").get<std::string>();
    if (m.machine_id != machine_id()) return std::nullopt;
    m.cpus = data.at("cpus").get<std::vector<int>>();
    m.rounds = data.at("rounds").get<int>();
    m.noise = data.at("noise").get<double>();
    m.stream_gbps = data.at("stream_gbps").get<double>();
    m.cache_gbps = data.at("cache_gbps").get<double>();
    m.fma_gflops = data.at("fma_gflops").get<double>();
    m.measured_at = data.value("measured_at", "");
    for (const auto& load : data.at("loads"))
      m.loads.push_back({load.at("kind").get<std::string>(), load.at("cpus").get<int>(), load.at("slowdown").get<double>(),
                         load.value("worst", "")});
    return m;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged, or an older grader's: measure again
  }
}

Interference run_interference_calibration(const Environment& env, int rounds) {
  fs::create_directories(interference_dir(env));
  const fs::path program = probe_program_path(env);
  const ToolResult build = run_tool({env.cxx, "-std=c++17", "-O2", "-march=native",
                                     (env.root / "grader" / "calibrate" / "interference_probe.cpp").string(), "-o", program.string()},
                                    interference_dir(env), 300);
  if (!build.ok()) throw std::runtime_error("cannot build the interference probe:\n" + build.output);

  Interference m;
  m.machine_id = machine_id();
  m.cpus = cpus_by_core();
  m.rounds = rounds;
  m.measured_at = utc_now_text();
  if (m.cpus.size() < 2) return m;  // nothing can run beside a timing: no load to measure
  const int timed = m.cpus.front();
  const std::vector<int> others(m.cpus.begin() + 1, m.cpus.end());
  // The loads: builds and timings on every other CPU; timings on 1, 3, 7, ... others for 2, 4, 8, ... slots.
  std::vector<std::pair<std::string, int>> loads = {{"builds", static_cast<int>(others.size())},
                                                    {"timings", static_cast<int>(others.size())}};
  for (int slots = 2; slots - 1 < static_cast<int>(others.size()); slots *= 2) loads.push_back({"timings", slots - 1});

  std::map<std::string, std::vector<double>> alone;                          // kernel -> rounds
  std::vector<std::map<std::string, std::vector<double>>> loaded(loads.size());
  for (int round = 0; round < rounds; ++round) {
    // Interleaved, so a drift of the machine over the minute falls on every load alike.
    for (const auto& [kernel, rate] : run_probe(program, timed)) alone[kernel].push_back(rate);
    for (std::size_t i = 0; i < loads.size(); ++i) {
      const std::vector<int> on(others.begin(), others.begin() + loads[i].second);
      for (const auto& [kernel, rate] : probe_beside(env, program, timed, loads[i].first, on)) loaded[i][kernel].push_back(rate);
    }
  }
  std::map<std::string, double> base;
  for (const char* kernel : kProbeKernels) {
    const auto& values = alone[kernel];
    base[kernel] = median_of(values);
    if (base[kernel] > 0)
      m.noise = std::max(m.noise, (*std::max_element(values.begin(), values.end()) - *std::min_element(values.begin(), values.end())) /
                                      base[kernel]);
  }
  m.stream_gbps = base["stream"];
  m.cache_gbps = base["cache"];
  m.fma_gflops = base["fma"];
  for (std::size_t i = 0; i < loads.size(); ++i) {
    InterferenceLoad load{loads[i].first, loads[i].second, 0, ""};
    for (const char* kernel : kProbeKernels) {
      if (base[kernel] <= 0) continue;
      const double slowdown = 1 - median_of(loaded[i][kernel]) / base[kernel];
      if (load.worst.empty() || slowdown > load.slowdown) {
        load.slowdown = slowdown;
        load.worst = kernel;
      }
    }
    m.loads.push_back(load);
  }
  const fs::path path = interference_path(env);
  const fs::path temporary = path.string() + ".tmp-" + unique_suffix();
  std::ofstream(temporary) << to_json(m).dump(2) << "\n";
  fs::rename(temporary, path);
  return m;
}

}  // namespace grader
