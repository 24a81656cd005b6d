#include "pipeline/launch.h"

#include <cstdlib>

#include "core/cpus.h"
#include "run/sandbox.h"

namespace grader {

LaunchOptions worker_launch_options(const LabSpec& spec, const std::filesystem::path& executable,
                                    const std::filesystem::path& workdir,
                                    const std::vector<std::filesystem::path>& readable,
                                    const std::vector<std::filesystem::path>& writable) {
  LaunchOptions launch;
  launch.argv = {executable.string()};
  launch.workdir = workdir;
  // Nothing of the grader's environment leaks in (no secrets, no paths to the reference); only what
  // the GPU runtime needs to find its libraries and device passes through.
  // OMP_WAIT_POLICY=passive: idle OpenMP threads sleep rather than spin, so a thread still running after a
  // timed call is work the submission left behind, not an idle pool. OMP_NUM_THREADS: OpenMP's default team is
  // the CPUs the grader counts as `threads` (core/cpus.h), which a container's CPU quota can make fewer than
  // the affinity mask OpenMP reads.
  launch.environment = {{"PATH", "/usr/bin:/bin"}, {"HOME", workdir.string()}, {"LANG", "C.UTF-8"},
                        {"OMP_WAIT_POLICY", "passive"}, {"OMP_NUM_THREADS", std::to_string(usable_cpus())}};
  for (const char* passed_through : {"LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES"})
    if (const char* value = std::getenv(passed_through)) launch.environment[passed_through] = value;
  const auto& limits = spec.limits;
  launch.limits.wall_seconds = limits.wall_seconds;
  launch.limits.cpu_seconds = limits.cpu_seconds;
  launch.limits.memory_bytes = limits.memory_mb << 20;
  // CUDA reserves far more address space than it uses: GPU labs bound resident memory instead.
  launch.limits.limit_address_space = !spec.gpu;
  launch.limits.output_bytes = limits.output_kb * 1024;
  launch.limits.processes = limits.processes;
  launch.limits.file_bytes = limits.file_mb << 20;
  launch.limits.open_files = limits.open_files;
  // The box shows the executable's directory read-only (so a candidate cannot replace the judge that runs
  // after it), the worker's own directory writable, and nothing else of this machine but the read-only system.
  std::vector<std::filesystem::path> shown = {executable.parent_path()};
  shown.insert(shown.end(), readable.begin(), readable.end());
  launch.wrapper = Sandbox::get().worker_wrapper(workdir, shown, spec.gpu, launch.limits.written_bytes, writable);
  return launch;
}

}  // namespace grader
