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
#include "pipeline/profiled_turns.h"
#include "run/sandbox.h"

namespace grader::pipeline {

namespace {

// ncu starts in seconds and replays each kernel once per pass of counters (about ten for this list), restoring its
// memory between passes: the profiled run gets this much for ncu's start and report, and the timed call's median
// this many times over for the call itself, never more than the lab's own wall limit. A run past it is ended and
// the report says so: a profiler that hangs must not hold a class's GPU.
constexpr double profiler_start_seconds = 120;
// ncu writes its report as the program leaves: a worker told to quit has this long before it is killed.
constexpr double profiler_leave_seconds = 60;
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

// What one profiled worker holds from its start to its ending.
struct Grading::ProfiledRun {
  std::unique_ptr<Worker> worker;
  ProcessLimits limits;        // its own, for the words of an ending
  double call_seconds = 0;     // the most its call may take, hello to reply (its wall limit less its wait for its turn)
  fs::path report;             // <folder>/counters.ncu-rep, once ncu has written it
  std::string failed;          // how the run failed, empty while it has not
};

namespace {

// What a profiled run left once its worker has gone: ncu writes its report as the program leaves.
struct RunEnding {
  fs::path report;
  std::string printed;  // the run's stdout and stderr: ncu's own lines
  std::string failed;
};

}  // namespace

// The profiled calls go one after another (two ncu sessions counting at once on one GPU would contend for its
// counters), but the seconds around each call overlap the call beside it. The next call's worker is started as
// this one begins, and is not spoken to before its turn: ncu's start, the box's and the program's are CPU work (a
// CUDA problem of the lab kit makes its device buffers at setup, ncu's library starts with the program's first CUDA
// call, and no code of the submission runs before `main`). As this call's worker leaves (ncu writes its report
// then), the next one is set up; only its profiled run waits for that worker to be gone, so no other process is on
// the GPU while ncu counts. Each report is imported (ncu's CPU work on a file) while the next call is profiled.
// Every call keeps a worker and a report of its own, as before: its kernels are the ones ncu counted in that
// process, its first two (ncu_profile_words), and a run that fails or overruns says so for its own items alone.
// The order of the steps is pipeline/profiled_turns.h's (unit.test_profiled_turns).
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
    std::future<RunEnding> ending;        // the worker's quit, ncu's report written
    std::future<CounterReading> reading;  // `ncu --import`, once the report is there
    std::string printed, failed;
  };
  const auto leave = [](std::unique_ptr<ProfiledRun> run) {
    return std::async(std::launch::async, [run = std::move(run)] {
      RunEnding ending{run->report, {}, run->failed};
      if (!run->worker) return ending;
      try {
        run->worker->quit(std::chrono::duration<double>(profiler_leave_seconds));
        ChildProcess& process = run->worker->process();
        ending.printed = process.stdout_text() + process.stderr_text();
        if (ending.failed.empty() && process.ending().kind != Ending::Kind::exited)
          ending.failed = describe_ending(process.ending(), run->limits).details;
      } catch (const std::exception& error) {
        if (ending.failed.empty()) ending.failed = error.what();
      }
      return ending;
    });
  };
  const auto import_when_left = [&](Import& import) {
    RunEnding ending = import.ending.get();
    import.printed = ending.printed;
    import.failed = ending.failed;
    import.reading = std::async(std::launch::async, [tool = *ncu, ending] {
      return read_ncu_report(tool, ending.report, ending.printed);
    });
  };

  const std::size_t calls = counters_queue_.size();
  std::vector<std::unique_ptr<ProfiledRun>> runs(calls);
  std::vector<Import> imports(calls);
  const auto keeping_failure = [&](std::size_t i, const auto& step) {  // what goes wrong in a step is its call's
    try {
      step(*runs[i]);
    } catch (const std::exception& error) {
      if (runs[i]->failed.empty()) runs[i]->failed = error.what();
    }
  };
  take_profiled_turns(
      calls,
      {[&](std::size_t i) {
         // It waits for its turn (its wall limit with it) as long as the call before it may take, and for the two
         // workers before it to leave (the one before the call before it, then that call's own).
         const double waits = i == 0 ? 0 : runs[i - 1]->call_seconds + 2 * profiler_leave_seconds;
         runs[i] = start_profiled_run(*ncu, counters_queue_[i].median_seconds, boxed, waits);
       },
       [&](std::size_t i) {
         const PerformanceItem& item = *counters_queue_[i].item;
         progress("counters",
                  "performance: " + item.name + ": one more call, counted by Nsight Compute " + ncu->version);
         keeping_failure(i, [&](ProfiledRun& run) {
           const Variables params = case_params(item.params, machine_);
           std::vector<std::string> variants;
           if (run.failed.empty() && (!run.worker->hello(variants, profiler_start_seconds) ||
                                      !run.worker->setup(params, inputs_seed(params), {}, judge_timeout())))
             run.failed = run.worker->failure().details;
         });
       },
       [&](std::size_t i) { import_when_left(imports[i]); },
       [&](std::size_t i) {
         keeping_failure(i, [&](ProfiledRun& run) {
           std::vector<Array> outputs;
           double seconds = 0;
           const std::string& variant = counters_queue_[i].item->variant;
           if (run.failed.empty() && !run.worker->run(variant, run.call_seconds, outputs, seconds, true))
             run.failed = run.worker->failure().details;
         });
       },
       [&](std::size_t i) {
         imports[i].key = counted_call_key(*counters_queue_[i].item);
         imports[i].ending = leave(std::move(runs[i]));
       }});
  counters_queue_.clear();
  for (auto& import : imports) {
    CounterReading reading = import.reading.get();
    ItemCounters& counters = counters_[import.key];
    counters.words = counted_words(*ncu, import.printed, import.failed, reading);
    if (reading.unavailable.empty()) counters.facts = counter_variables(reading.kernels);
  }
  stages_.enter("timing");  // what follows is counted as it was: the counters' seconds are the profiled calls' alone
}

// A worker of the submission under ncu, in the same box and limits as every candidate, with more for ncu itself;
// started, not yet spoken to. `waits_seconds`: how long it may wait for its turn (the call before it), added to its
// wall limit.
std::unique_ptr<Grading::ProfiledRun> Grading::start_profiled_run(const NcuTool& ncu, double median_seconds, bool boxed,
                                                                  double waits_seconds) {
  auto run = std::make_unique<ProfiledRun>();
  try {
    prepare_profiled_run(*run, ncu, median_seconds, boxed, waits_seconds);
  } catch (const std::exception& error) {
    run->worker.reset();
    run->failed = error.what();
  }
  return run;
}

void Grading::prepare_profiled_run(ProfiledRun& run, const NcuTool& ncu, double median_seconds, bool boxed,
                                   double waits_seconds) {
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
  run.call_seconds = profiler_start_seconds + std::min(call_seconds, spec_.limits.wall_seconds);
  launch.limits.wall_seconds = run.call_seconds + waits_seconds;
  launch.limits.cpu_seconds = launch.limits.cpu_seconds + profiler_start_seconds;
  launch.limits.processes += profiler_processes;
  launch.limits.memory_bytes += profiler_memory_bytes;
  launch.limits.open_files += profiler_open_files;
  launch.limits.output_bytes = std::max<std::size_t>(launch.limits.output_bytes, 1u << 20);  // ncu's own lines
  run.limits = launch.limits;
  run.report = report_dir / "counters.ncu-rep";
  run.worker = std::make_unique<Worker>(launch, "profiled-candidate", WorkerCode::submission);
}

}  // namespace grader::pipeline
