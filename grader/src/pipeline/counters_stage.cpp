// counters_stage.cpp: the GPU's counters for the report (docs/design.md, "The inspect stage"). Once the last item is
// timed, and still in the grading's timing turn, the grader starts one more worker of the submission per timed call
// under Nsight Compute (inspect/ncu.h), inside the same box and limits as every candidate, sets up the call's inputs
// and has the variant called once with "profile": true, so ncu counts only that call. The grader chooses all of it: whether, which
// metrics, where the report goes; the candidate's program is run, never asked. ncu's report is read back by the
// grader, as CSV, once the profiled process has ended. Counters never change a point: a missing ncu, a driver that
// refuses profiling, a run that fails or overruns leave the report saying which, and grading goes on.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <future>

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

void Grading::queue_counters(const PerformanceItem& item, const TestResult& test) {
  if (!options_.counters || !spec_.gpu || !test.measurement) return;
  // Only a call that was timed and checked: a wrong or crashed variant says nothing worth counting.
  if (test.verdict != Verdict::passed && test.verdict != Verdict::below_threshold) return;
  const std::string key = counted_call_key(item);
  for (const auto& queued : counters_queue_)
    if (counted_call_key(*queued.item) == key) return;
  counters_queue_.push_back({&item, test.measurement->candidate.median});
}

namespace {

// printed: the profiled run's stdout and stderr; failed: how it failed, empty when it did not.
std::string counted_words(const NcuTool& ncu, const std::string& printed, const std::string& failed,
                          const CounterReading& reading) {
  if (!reading.unavailable.empty()) {
    // ncu's own words first (ERR_NVGPUCTRPERM), then how the run ended.
    std::string why = reading.unavailable;
    if (!failed.empty())
      why = ncu_failure(printed).empty() ? "the profiled run failed (" + failed + ")" : why + "; the profiled run: " + failed;
    return "counters not read (Nsight Compute " + ncu.version + "): " + why;
  }
  return "counters: Nsight Compute " + ncu.version + ", one extra call outside the timed rounds; " +
         seen_launch(reading.kernels);
}

}  // namespace

// The profiled runs go one after another (two ncu sessions on one GPU would contend for its counters), and each
// run's report is imported while the next run profiles: the import is ncu's CPU work on a file, a second or so of
// every run that no longer adds up.
void Grading::read_queued_counters() {
  if (counters_queue_.empty()) return;
  std::string why_not;
  const std::optional<NcuTool> ncu = find_ncu(env_, why_not);
  // ncu's library in the program talks to ncu over TCP, which the syscall filter refuses unless the program is in
  // a network namespace of its own: the box's, or one a root grader makes for it.
  const bool boxed = Sandbox::get().available();
  if (ncu && !boxed && ::geteuid() != 0)
    why_not = "Nsight Compute talks to the program over TCP, which is allowed only in a network of the program's "
              "own: bubblewrap's box, or one a root grader makes (docs/ta-guide.md)";
  if (!ncu || !why_not.empty()) {
    for (const auto& queued : counters_queue_) counters_[counted_call_key(*queued.item)].words = "counters not read: " + why_not;
    counters_queue_.clear();
    return;
  }
  struct Import {
    std::string key;
    ProfiledCall run;
    std::future<CounterReading> reading;
  };
  std::vector<Import> imports;
  for (const auto& queued : counters_queue_) {
    const PerformanceItem& item = *queued.item;
    progress("counters", "performance: " + item.name + ": one more call, counted by Nsight Compute " + ncu->version);
    ProfiledCall run = profile_call(item, *ncu, queued.median_seconds, boxed);
    auto reading = std::async(std::launch::async, [tool = *ncu, report = run.report, printed = run.printed] {
      return read_ncu_report(tool, report, printed);
    });
    imports.push_back({counted_call_key(item), std::move(run), std::move(reading)});
  }
  counters_queue_.clear();
  for (auto& import : imports) {
    CounterReading reading = import.reading.get();
    ItemCounters& counters = counters_[import.key];
    counters.words = counted_words(*ncu, import.run.printed, import.run.failed, reading);
    if (reading.unavailable.empty()) counters.facts = counter_variables(reading.kernels);
  }
  stages_.enter("timing");  // what follows is counted as it was: the counters' seconds are the profiled calls' alone
}

Grading::ProfiledCall Grading::profile_call(const PerformanceItem& item, const NcuTool& ncu, double median_seconds,
                                           bool boxed) {
  const fs::path dir = workdir_ / ("counters-" + std::to_string(++workers_started_));
  const fs::path report_dir = dir / "report";
  fs::create_directories(report_dir);
  // The worker may run as a user of its own (a root grader): it writes the report here, and only here.
  ::chmod(report_dir.c_str(), 0777);
  const fs::path run_dir = dir / "run";
  fs::create_directories(run_dir);
  LaunchOptions launch =
      worker_launch_options(spec_, candidate_build_.executable, run_dir, ncu.install_dirs, {report_dir});
  if (!visible_devices_.empty()) launch.environment["CUDA_VISIBLE_DEVICES"] = visible_devices_;
  launch.environment["GRADER_PROFILED_CALL"] = "loopback";  // grader/filter/start_filter.h
  launch.own_network = !boxed;
  const std::vector<std::string> words = ncu_profile_words(ncu, report_dir / "counters");
  launch.wrapper.insert(launch.wrapper.end(), words.begin(), words.end());
  const double call_seconds = profiled_call_factor * median_seconds + 30;
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
  return {report_dir / "counters.ncu-rep", printed, failed};
}

}  // namespace grader::pipeline
