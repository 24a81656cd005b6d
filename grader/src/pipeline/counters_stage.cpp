// counters_stage.cpp: the GPU's counters for the report (docs/design.md, "The inspect stage"). After a timed item's
// measurement, and before the next one, the grader starts one more worker of the submission under Nsight Compute
// (inspect/ncu.h), inside the same box and limits as every candidate, sets up the item's inputs and has the variant
// called once with "profile": true, so ncu counts only that call. The grader chooses all of it: whether, which
// metrics, where the report goes; the candidate's program is run, never asked. ncu's report is read back by the
// grader, as CSV, once the profiled process has ended. Counters never change a point: a missing ncu, a driver that
// refuses profiling, a run that fails or overruns leave the report saying which, and grading goes on.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "inspect/ncu.h"
#include "pipeline/grading.h"
#include "pipeline/launch.h"
#include "run/sandbox.h"

namespace grader::pipeline {

namespace {

// ncu starts in seconds and replays each kernel once per pass of counters (about ten for this list), restoring its
// memory between passes: the profiled run gets this much for ncu's start and report, and the timed call's median
// this many times over for the call itself, never more than the lab's own wall limit. A run past it is ended and
// the report says so: a profiler that hangs must not hold a class's GPU.
constexpr double profiler_start_seconds = 120;
constexpr double profiled_call_factor = 200;
// ncu's own threads and processes, and its memory, on top of what the lab allows the worker.
constexpr int profiler_processes = 256;
constexpr std::size_t profiler_memory_bytes = std::size_t(4) << 30;
constexpr int profiler_open_files = 1024;

}  // namespace

// Items that time the same call (variant and inputs) against different yardsticks (lab 6's speedup and its fraction
// of the transfer bound) would have the same call counted again: one profiled run costs 2 to 12 s on an H200.
std::string Grading::counted_call_key(const PerformanceItem& item) {
  std::string key = item.variant;
  for (const auto& p : item.params) key += "|" + p.name + "=" + p.value.text();
  return key;
}

void Grading::read_counters(const PerformanceItem& item, const TestResult& test) {
  if (!options_.counters || !spec_.gpu || !test.measurement) return;
  // Only a call that was timed and checked: a wrong or crashed variant says nothing worth counting.
  if (test.verdict != Verdict::passed && test.verdict != Verdict::below_threshold) return;
  const std::string key = counted_call_key(item);
  if (counters_.count(key)) return;
  ItemCounters& counters = counters_[key];
  std::string why_not;
  const std::optional<NcuTool> ncu = find_ncu(env_, why_not);
  if (!ncu) {
    counters.words = "counters not read: " + why_not;
    return;
  }
  // ncu's library in the program talks to ncu over TCP, which the syscall filter refuses unless the program is in
  // a network namespace of its own: the box's, or one a root grader makes for it.
  const bool boxed = Sandbox::get().available();
  if (!boxed && ::geteuid() != 0) {
    counters.words = "counters not read: Nsight Compute talks to the program over TCP, which is allowed only in a "
                     "network of the program's own: bubblewrap's box, or one a root grader makes (docs/ta-guide.md)";
    return;
  }
  progress("counters", "performance: " + item.name + ": one more call, counted by Nsight Compute " + ncu->version);
  const fs::path dir = workdir_ / ("counters-" + std::to_string(++workers_started_));
  const fs::path report_dir = dir / "report";
  fs::create_directories(report_dir);
  // The worker may run as a user of its own (a root grader): it writes the report here, and only here.
  ::chmod(report_dir.c_str(), 0777);
  const fs::path run_dir = dir / "run";
  fs::create_directories(run_dir);
  LaunchOptions launch =
      worker_launch_options(spec_, candidate_build_.executable, run_dir, ncu->install_dirs, {report_dir});
  if (!visible_devices_.empty()) launch.environment["CUDA_VISIBLE_DEVICES"] = visible_devices_;
  launch.environment["GRADER_PROFILED_CALL"] = "loopback";  // grader/filter/start_filter.h
  launch.own_network = !boxed;
  const std::vector<std::string> words = ncu_profile_words(*ncu, report_dir / "counters");
  launch.wrapper.insert(launch.wrapper.end(), words.begin(), words.end());
  const double call_seconds = profiled_call_factor * test.measurement->candidate.median + 30;
  launch.limits.wall_seconds = profiler_start_seconds + std::min(call_seconds, spec_.limits.wall_seconds);
  launch.limits.cpu_seconds = launch.limits.cpu_seconds + profiler_start_seconds;
  launch.limits.processes += profiler_processes;
  launch.limits.memory_bytes += profiler_memory_bytes;
  launch.limits.open_files += profiler_open_files;
  launch.limits.output_bytes = std::max<std::size_t>(launch.limits.output_bytes, 1u << 20);  // ncu's own lines

  std::string failed;
  std::string printed;
  try {
    Worker worker(launch, "profiled-candidate", WorkerCode::submission);
    std::vector<std::string> variants;
    std::vector<Array> outputs;
    double seconds = 0;
    const Variables params = case_params(item.params, machine_);
    const std::uint64_t seed = inputs_seed(params);
    if (!worker.hello(variants, profiler_start_seconds) || !worker.setup(params, seed, {}, judge_timeout()) ||
        !worker.run(item.variant, launch.limits.wall_seconds, outputs, seconds, true))
      failed = worker.failure().details;
    // ncu writes its report once the program has left.
    worker.quit(std::chrono::seconds(60));
    printed = worker.process().stdout_text() + worker.process().stderr_text();
    if (failed.empty() && worker.process().ending().kind != Ending::Kind::exited)
      failed = describe_ending(worker.process().ending(), launch.limits).details;
  } catch (const std::exception& error) {
    failed = error.what();
  }
  CounterReading reading = read_ncu_report(*ncu, report_dir / "counters.ncu-rep", printed);
  if (!reading.unavailable.empty()) {
    // ncu's own words first (ERR_NVGPUCTRPERM), then how the run ended.
    std::string why = reading.unavailable;
    if (!failed.empty())
      why = ncu_failure(printed).empty() ? "the profiled run failed (" + failed + ")"
                                         : why + "; the profiled run: " + failed;
    counters.words = "counters not read (Nsight Compute " + ncu->version + "): " + why;
    return;
  }
  counters.facts = counter_variables(reading.kernels);
  counters.words = "counters: Nsight Compute " + ncu->version + ", one extra call outside the timed rounds; " +
                   seen_launch(reading.kernels);
}

}  // namespace grader::pipeline
