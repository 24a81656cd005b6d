#include "inspect/ncu.h"

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "core/tool.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

// "Version 2025.3.1.0 (build 36398880) (public-release)" -> "2025.3.1.0".
std::string version_of_ncu(const std::string& output) {
  const auto at = output.rfind("Version ");
  if (at == std::string::npos) return {};
  const auto start = at + 8;
  const auto end = output.find_first_of(" \n\r", start);
  return output.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace

std::optional<NcuTool> find_ncu(const Environment& env, std::string& why_not) {
  std::vector<fs::path> candidates;
  if (const char* chosen = std::getenv("GRADER_NCU"); chosen != nullptr && *chosen != '\0') {
    candidates.push_back(chosen);
  } else {
    if (env.nvcc) candidates.push_back(fs::path(*env.nvcc).parent_path() / "ncu");
    if (auto on_path = find_on_path("ncu")) candidates.push_back(*on_path);
    candidates.push_back("/usr/local/cuda/bin/ncu");
  }
  std::error_code ec;
  for (const auto& candidate : candidates) {
    if (!fs::is_regular_file(candidate, ec) || ::access(candidate.c_str(), X_OK) != 0) continue;
    // `ncu --version` once per program: a batch asks for every item of every student.
    static std::mutex lock;
    static std::map<std::string, std::string> versions;
    std::string version;
    {
      std::lock_guard<std::mutex> held(lock);
      auto found = versions.find(candidate.string());
      if (found == versions.end()) {
        const ToolResult result = run_tool({candidate.string(), "--version"}, fs::temp_directory_path(), 60);
        found = versions.emplace(candidate.string(), result.ok() ? version_of_ncu(result.output) : "").first;
      }
      version = found->second;
    }
    if (version.empty()) {
      why_not = candidate.string() + " --version did not answer as Nsight Compute does";
      return std::nullopt;
    }
    // ncu is often a link (/usr/local/cuda/bin/ncu -> /opt/nvidia/nsight-compute/<version>/ncu) and a script that
    // runs the real program beside it: the box must show that folder.
    const fs::path real = fs::canonical(candidate, ec);
    NcuTool ncu{candidate.string(), version, {ec ? candidate.parent_path() : real.parent_path()}};
    for (const char* nvidia : {"/opt/nvidia/nsight-compute"})
      if (fs::is_directory(nvidia, ec) && !fs::equivalent(nvidia, ncu.install_dirs.front(), ec)) ncu.install_dirs.push_back(nvidia);
    return ncu;
  }
  why_not = "Nsight Compute (ncu) is not installed here (looked beside nvcc, on PATH and in /usr/local/cuda/bin)";
  return std::nullopt;
}

std::vector<std::string> ncu_profile_words(const NcuTool& ncu, const fs::path& report_base) {
  return {ncu.path,
          "--metrics", profiled_metrics_argument(),
          // Only between the harness's cudaProfilerStart and Stop: the one call, not setup or poisoning.
          "--profile-from-start", "off",
          "--target-processes", "application-only",
          // The GPU's clocks are left as they are (a batch's other GPUs, and the timings after, see none of it).
          "--clock-control", "none",
          // The call's first two kernels (a reduction's two passes; one chunk of a pipeline, where every chunk
          // runs the same kernel): each is replayed once per pass of counters with the call's memory restored
          // between passes, about a second a kernel for lab 6's 1 GiB on an H200 (its run: 11.8 s with eight
          // kernels, 5.1 s with two; bench/gpu/ncu_cost.sh).
          "--launch-count", "2",
          "--export", report_base.string(), "--force-overwrite"};
}

CounterReading read_ncu_report(const NcuTool& ncu, const fs::path& report, const std::string& run_output) {
  CounterReading reading;
  std::error_code ec;
  if (!fs::is_regular_file(report, ec) || fs::is_symlink(report, ec)) {
    reading.unavailable = ncu_failure(run_output);
    if (reading.unavailable.empty()) reading.unavailable = "ncu wrote no report of the profiled call";
    return reading;
  }
  ToolOptions options;
  options.timeout_seconds = 120;
  options.output_cap = 8 << 20;
  options.as_build_user = true;
  // Its own home, in the report's folder: ncu reads its settings from $HOME/.config, and a root grader's home is
  // closed to the build user (a folder ncu made there once, as root, stops every later import).
  const std::string home = report.parent_path().string();
  options.environment = {"HOME=" + home, "XDG_CONFIG_HOME=" + home, "LANG=C.UTF-8"};
  for (const char* passed : {"PATH", "LD_LIBRARY_PATH"})
    if (const char* value = std::getenv(passed)) options.environment.push_back(std::string(passed) + "=" + value);
  const ToolResult imported =
      run_tool({ncu.path, "--import", report.string(), "--csv", "--page", "raw"}, report.parent_path(), options);
  if (!imported.ok()) {
    reading.unavailable = imported.timed_out ? "ncu --import took more than 120 s" : ncu_failure(imported.output);
    if (reading.unavailable.empty()) reading.unavailable = "ncu --import failed (exit " + std::to_string(imported.exit_code) + ")";
    return reading;
  }
  try {
    reading.kernels = parse_ncu_raw_csv(imported.output);
  } catch (const std::exception& error) {
    reading.unavailable = std::string("ncu's report could not be read: ") + error.what();
    return reading;
  }
  if (reading.kernels.empty()) reading.unavailable = "ncu profiled no kernel of the call";
  return reading;
}

}  // namespace grader
