// grader calibrate: measures this machine's roofline (memory bandwidth, FP64 peak) and keeps it.
#include <cstdio>

#include "calibrate/calibration.h"
#include "cli/common.h"

namespace grader {

void setup_calibrate(CLI::App& app) {
  auto* calibrate = app.add_subcommand("calibrate", "measure this machine's memory bandwidth and FP64 peak for reports");
  calibrate->callback([] {
    const Environment env = current_environment();
    std::fprintf(stderr, "calibrating (about 10 s; keep the machine otherwise idle)...\n");
    CpuCalibration c;
    try {
      c = run_calibration(env);
    } catch (const std::exception& error) {
      throw CommandFailure(ExitCode::environment, error.what());
    }
    std::printf("machine %s (%d threads)\n", machine_id().c_str(), c.threads);
    std::printf("  memory bandwidth   1 thread %8.1f GB/s    all threads %8.1f GB/s\n", c.bandwidth_1t_gbps, c.bandwidth_all_gbps);
    std::printf("  FP64 peak          1 thread %8.1f GFLOP/s all threads %8.1f GFLOP/s\n", c.peak_fp64_gflops_1t,
                c.peak_fp64_gflops_all);
    std::printf("kept in %s\n", calibration_path(env).c_str());
  });
}

}  // namespace grader
