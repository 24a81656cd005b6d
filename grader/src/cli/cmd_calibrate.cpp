// grader calibrate: measures this machine's roofline (memory bandwidth, FP64 peak) and keeps it.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "batch/gpu_inventory.h"
#include "calibrate/calibration.h"
#include "calibrate/interference.h"
#include "cli/common.h"

namespace grader {

namespace {

// --gpus N|all, read before anything is measured.
std::vector<Gpu> requested_gpus(const std::string& request) {
  if (request.empty()) return {};
  try {
    return choose_gpus(request, query_gpus());
  } catch (const GpuRequestError& error) {
    throw CommandFailure(error.malformed ? ExitCode::usage : ExitCode::environment, error.what());
  }
}

// Each GPU on its own, as `grader batch --gpus` grades on it.
void calibrate_each_gpu(const Environment& env, const std::vector<Gpu>& gpus) {
  std::vector<std::string> uuids;
  for (const auto& gpu : gpus) uuids.push_back(gpu.uuid);
  std::vector<GpuCalibration> measured;
  try {
    measured = run_gpu_calibrations(env, uuids);
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::environment, error.what());
  }
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const GpuCalibration& g = measured[i];
    std::printf("%s %s: read-only %8.1f GB/s   device copy %8.1f GB/s   SGEMM %6.1f TFLOP/s   DGEMM %6.1f TFLOP/s; %s\n",
                describe_gpu(gpus[i]).c_str(), g.name.c_str(), g.read_bandwidth_gbps, g.bandwidth_gbps, g.sgemm_tflops,
                g.dgemm_tflops, g.stable ? "stable" : "NOT stable: calibrate again when the GPU is idle");
    std::printf("  kept in %s\n", gpu_calibration_path(env, gpus[i].uuid).c_str());
  }
}

// The GPU just measured is CUDA's device 0, the one a grading here runs on (grading_gpu): its figures are kept by its
// UUID too, which is how a grading looks them up; without them the first grading would measure that GPU again.
void keep_for_grading_gpu(const Environment& env, const GpuCalibration& measured) {
  std::optional<Gpu> gpu;
  try {
    const auto listed = list_gpus();
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    if (listed) gpu = grading_gpu(*listed, visible ? visible : "");
  } catch (const GpuRequestError&) {
    return;  // nvidia-smi failed: the first grading calibrates its GPU itself
  }
  // nvidia-smi's name and CUDA's agree for one GPU ("NVIDIA H100 80GB HBM3"): any other answer is another GPU.
  if (!gpu || gpu->name != measured.name || !keep_machine_gpu_calibration(env, gpu->uuid)) return;
  std::printf("  kept for %s too, as gradings on it look it up\n", describe_gpu(*gpu).c_str());
}

// --interference: what a batch may run beside a timing here (calibrate/interference.h), measured and printed.
void calibrate_interference(const Environment& env) {
  std::fprintf(stderr, "measuring what may run beside a timing (a probe on one CPU, alone and with loads on the others)...\n");
  Interference m;
  try {
    m = run_interference_calibration(env);
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::environment, error.what());
  }
  std::printf("machine %s, CPUs in slot order:", m.machine_id.c_str());
  for (int cpu : m.cpus) std::printf(" %d", cpu);
  std::printf("\n  probe alone: stream %.1f GB/s, cache %.1f GB/s, FMA %.1f GFLOP/s; spread over %d rounds %.1f%%\n",
              m.stream_gbps, m.cache_gbps, m.fma_gflops, m.rounds, 100 * m.noise);
  for (const auto& load : m.loads)
    std::printf("  %-8s on %2d other CPU(s): %+5.1f%% (%s)\n", load.kind.c_str(), load.cpus, -100 * load.slowdown, load.worst.c_str());
  std::printf("kept in %s; each batch decides from it and says what it chose (docs/ta-guide.md)\n", interference_path(env).c_str());
}

}  // namespace

void setup_calibrate(CLI::App& app) {
  auto* calibrate = app.add_subcommand("calibrate", "measure this machine's memory bandwidth and FP64 peak for reports");
  auto gpus = std::make_shared<std::string>();
  auto interference = std::make_shared<bool>(false);
  calibrate->add_flag("--interference", *interference,
                      "only measure whether builds or other timings on the other CPUs slow a timing (what `grader batch` "
                      "may run beside one)");
  calibrate->add_option("--gpus", *gpus, "also calibrate each of N GPUs (or all), one by one, kept by UUID for `grader batch --gpus`");
  calibrate->callback([gpus, interference] {
    const Environment env = current_environment();
    if (*interference) {
      calibrate_interference(env);
      return;
    }
    const std::vector<Gpu> each_gpu = requested_gpus(*gpus);
    std::fprintf(stderr, "calibrating (10 to 60 s: rounds repeat until the figures settle; keep the machine otherwise idle)...\n");
    Calibration calibration;
    try {
      calibration = run_calibration(env);
    } catch (const std::exception& error) {
      throw CommandFailure(ExitCode::environment, error.what());
    }
    const CpuCalibration& c = calibration.cpu;
    std::printf("machine %s (%d threads)\n", machine_id().c_str(), c.threads);
    std::printf("  read-only memory   1 thread %8.1f GB/s    all threads %8.1f GB/s\n", c.read_bandwidth_1t_gbps,
                c.read_bandwidth_all_gbps);
    std::printf("  read-write memory  1 thread %8.1f GB/s    all threads %8.1f GB/s\n", c.bandwidth_1t_gbps, c.bandwidth_all_gbps);
    std::printf("  FP64 peak          1 thread %8.1f GFLOP/s all threads %8.1f GFLOP/s\n", c.peak_fp64_gflops_1t,
                c.peak_fp64_gflops_all);
    // All threads far below threads x one thread's FP64 peak, on a machine no other program was using: the
    // cores share their FP64 units (SMT siblings, a hypervisor's vCPUs). That is this machine's real ceiling,
    // and the scaling tiers follow it; the note says why the figure is low.
    if (c.threads > 1 && !c.busy && c.peak_fp64_gflops_all < 0.6 * c.threads * c.peak_fp64_gflops_1t)
      std::printf("  note: all %d threads reach %.1fx one thread's FP64 peak on a quiet machine: its cores share "
                  "FP64 units (SMT siblings or a hypervisor's vCPUs); scaling tiers derived from the calibration "
                  "follow it\n",
                  c.threads, c.peak_fp64_gflops_all / c.peak_fp64_gflops_1t);
    const std::string busy_line = "BUSY: other programs took " + std::to_string(std::lround(100 * c.others_share)) +
                                  "% of these CPUs while all threads were timed, so the all-thread figures are too "
                                  "low; run `grader calibrate` again when the machine is quiet";
    std::printf("  %d rounds; %s\n", c.rounds,
                c.busy     ? busy_line.c_str()
                : c.stable ? "stable: the last round moved no ceiling by more than 3%"
                           : "NOT stable: the ceilings still moved by more than 3% in the last round; run `grader "
                             "calibrate` again when the machine is quiet");
    if (const auto& g = calibration.gpu) {
      std::printf("gpu %s (%s)\n", g->name.c_str(), g->arch.c_str());
      std::printf("  read-only %8.1f GB/s   device copy %8.1f GB/s   SGEMM %6.1f TFLOP/s   DGEMM %6.1f TFLOP/s\n",
                  g->read_bandwidth_gbps, g->bandwidth_gbps, g->sgemm_tflops, g->dgemm_tflops);
      std::printf("  pinned copies: host to device %6.1f GB/s, device to host %6.1f GB/s\n", g->h2d_pinned_gbps, g->d2h_pinned_gbps);
      std::printf("  %d rounds; %s\n", g->rounds, g->stable ? "stable" : "NOT stable: run `grader calibrate` again when the GPU is idle");
    } else {
      std::printf("no CUDA GPU calibrated (none found, or no nvcc)\n");
    }
    std::printf("kept in %s\n", calibration_path(env).c_str());
    if (!each_gpu.empty()) calibrate_each_gpu(env, each_gpu);
    else if (calibration.gpu) keep_for_grading_gpu(env, *calibration.gpu);
  });
}

}  // namespace grader
