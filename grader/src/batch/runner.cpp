#include "batch/runner.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <exception>
#include <functional>
#include <set>
#include <thread>

#include "batch/audit.h"
#include "batch/dashboard.h"
#include "batch/gpu_batch.h"
#include "batch/gradebook.h"
#include "batch/stored_report.h"
#include "batch/summary.h"
#include "batch/timing_plan.h"
#include "build/build.h"
#include "core/atomic_file.h"
#include "calibrate/calibration.h"
#include "core/cpus.h"
#include "core/utf8.h"
#include "report/html_report.h"
#include "report/writers.h"
#include "report/verdict.h"
#include "run/syscall_filter.h"

namespace grader {

namespace {

// The one-minute load average above the machine's hardware threads. The load average counts the whole machine,
// so it is weighed against the whole machine's CPUs, not the ones this grader may use (core/cpus.h).
bool busy_machine() {
  std::ifstream loadavg("/proc/loadavg");
  double load = 0;
  return (loadavg >> load) && load > std::max(1u, std::thread::hardware_concurrency()) + 0.5;
}

}  // namespace

std::size_t write_missing_gradescope(const ResultStore& store, const std::vector<Submission>& students) {
  std::size_t written = 0;
  for (const auto& student : students) {
    std::error_code ec;
    if (std::filesystem::exists(store.gradescope_path(student.id), ec)) continue;
    const std::optional<nlohmann::json> report = store.result(student.id);
    if (!report) continue;  // not finished: its grading writes every file
    store.save_gradescope(student.id, to_gradescope(report_from_json(*report)));
    ++written;
  }
  return written;
}

void prepare_lab(const Environment& env, const LabSpec& spec, bool quick, BatchProgress& progress) {
  const bool needs_roofline = std::any_of(spec.performance.begin(), spec.performance.end(),
                                          [](const PerformanceItem& p) { return p.metric == Metric::roofline; });
  if (!quick && needs_roofline) {
    std::optional<Calibration> calibration = load_calibration(env);
    if (!calibration) {
      progress.note("calibrating this machine once (memory bandwidth, FP64 peak); `grader calibrate` redoes it");
      if (busy_machine())
        progress.note("warning: the machine is busy: a calibration taken now is low, and fast submissions may later be "
                      "judged faster than the machine allows (suspect); calibrate on a quiet machine");
      try {
        calibration = run_calibration(env);
      } catch (const std::exception& error) {
        progress.note(std::string("warning: calibration failed (") + error.what() + "); roofline items will say so");
      }
    }
    // Every roofline score of the class rests on these figures: say which they are.
    if (calibration) {
      char figures[160];
      std::snprintf(figures, sizeof figures, "%.1f GB/s and %.1f GFLOP/s on 1 thread, %.1f GB/s on all",
                    calibration->cpu.bandwidth_1t_gbps, calibration->cpu.peak_fp64_gflops_1t, calibration->cpu.bandwidth_all_gbps);
      progress.note("roofline from this machine's calibration: " + std::string(figures) + " (" +
                    calibration_path(env).string() + "; `grader calibrate` renews it)");
    }
  }
  // The pipeline builds the lab on first use; done here once, so gradings in parallel find it cached.
  progress.note("building " + spec.name() + "'s harness and judge");
  build_lab(env, spec);
}

namespace {

// What the grading threads of one batch share.
struct ClassGrading {
  const Environment& env;
  const LabSpec& spec;
  const ResultStore& store;
  const BatchRun& run;
  BatchProgress& progress;
  BatchCounts& counts;
  std::mutex& counts_mutex;
};

// Grades `student` once and stores the result, unless `void_if` finds a reason the grading cannot stand (its GPU
// failed): then nothing of it is stored, not even its replay bundle, and the reason is returned.
std::string grade_and_store(ClassGrading& c, const Submission& student, StudentGrading mine,
                            const std::function<std::string(const Report&)>& void_if = {}) {
  c.progress.started(student.id);
  mine.progress = [&c, &student](const std::string& line) { c.progress.step(student.id, line); };
  // A grading that may be voided writes its bundle aside, so a void one never replaces the student's last good one.
  const std::filesystem::path bundle = c.store.bundle_path(student.id);
  if (c.run.bundles) mine.bundle = void_if ? temporary_beside(bundle) : bundle;
  // A regrade replays the seed the student's report was graded with.
  std::optional<std::uint64_t> seed;
  const std::optional<nlohmann::json> previous = c.store.result(student.id);
  if (previous && previous->contains("seed") && (*previous)["seed"].is_number_unsigned())
    seed = (*previous)["seed"].get<std::uint64_t>();
  GradedStudent graded = grade_student(c.env, c.spec, student, mine, seed);
  if (void_if) {
    std::error_code ec;
    if (std::string why = void_if(graded.report); !why.empty()) {
      std::filesystem::remove_all(mine.bundle, ec);
      return why;
    }
    if (!mine.bundle.empty() && std::filesystem::exists(mine.bundle, ec)) {
      std::filesystem::remove_all(bundle, ec);
      std::filesystem::rename(mine.bundle, bundle, ec);
    }
  }
  const StudentFiles files = student_files(graded, c.run.gradescope);
  c.store.save(student.id, files);
  const std::string status = student_status(files.report);  // the gradebook's words
  if (previous)
    record_regrade(c.store.folder(), {files.report["batch"].value("graded_at", ""), valid_utf8(student.id),
                                      previous->value("score", 0.0), graded.report.score, graded.report.max_score,
                                      student_status(*previous), status, c.run.reason});
  {
    std::lock_guard lock(c.counts_mutex);
    ++c.counts.graded;
    // A test the grader failed on (the judge could not start) is as much an internal error as a report that is one.
    if (graded.report.verdict == Verdict::internal_error || status == "internal_error") ++c.counts.internal_errors;
    if (status != "passed") ++c.counts.failed;
  }
  c.progress.finished(student.id, graded.report.score, graded.report.max_score, status, graded.report.wall_seconds);
  return "";
}

// --gpus: one student per GPU at a time (batch/gpu_slots.h), a GPU that fails out of rotation.
void grade_on_each_gpu(ClassGrading& c, const std::vector<const Submission*>& todo, const StudentGrading& grading) {
  GpuSlots slots(c.run.gpus);
  GpuEvents events;
  events.retired = [&c, &todo](std::size_t index, const Gpu& gpu, const std::string& why) {
    c.progress.note(describe_gpu(gpu) + " is taken out of rotation for the rest of this batch: " + why + " (while grading " +
                    todo[index]->id + ", whose grading there is discarded)");
    record_retired_gpu(c.store.folder(), gpu, why, todo[index]->id);
  };
  events.left_ungraded = [&c, &todo](std::size_t index, const std::string& why) {
    c.progress.abandoned(todo[index]->id, why);
    std::lock_guard lock(c.counts_mutex);
    c.counts.left_ungraded.push_back(todo[index]->id);
  };
  grade_on_gpus(slots, todo.size(), c.run.jobs, [&](std::size_t index, const ClaimGpu& claim) {
    ClaimedGpu claimed;
    const StudentGrading mine = on_claimed_gpu(grading, claim, claimed, c.run.gpu_calibrations);
    return grade_and_store(c, *todo[index], mine, [&claimed](const Report& report) { return gpu_failure_after(report, claimed); });
  }, events);
  c.counts.retired_gpus = slots.retired();
  if (!c.counts.left_ungraded.empty())
    c.progress.note(std::to_string(c.counts.left_ungraded.size()) + " student(s) left ungraded with no GPU to grade them on; "
                    "check the GPUs (nvidia-smi), then run the same command again: it grades just them");
}

// The calling thread on `cpus` (none: left as it is); what it starts inherits them.
void keep_thread_on(const std::vector<int>& cpus) {
  if (cpus.empty()) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// How this class's timings share the machine (batch/timing_plan.h), measuring what may run beside a timing the
// first time a lab that could share it is graded here. Said on the progress either way, with the figures.
TimingPlan plan_class_timing(const Environment& env, const LabSpec& spec, bool asked_one_at_a_time, BatchProgress& progress) {
  if (asked_one_at_a_time) {
    TimingPlan plan;
    plan.mode = "one at a time";
    progress.note("timing: one at a time, because --one-at-a-time asked for it");
    return plan;
  }
  std::optional<Interference> measured;
  if (needs_whole_machine(spec).empty() && syscall_filter_built()) {
    measured = load_interference(env);
    // On 2 or 3 CPUs a timing would have to share its core's neighbours, and the 2-vCPU VM measured a build there
    // at 8.4%: the batch does not spend the seconds to find what is almost surely "one at a time" (a TA may still
    // measure it: `grader calibrate --interference`).
    if (!measured && usable_cpus() >= 4) {
      progress.note("measuring once what may run beside a timing on this machine (some seconds; " +
                    interference_path(env).string() + ", `grader calibrate` renews it)");
      if (busy_machine()) progress.note("warning: the machine is busy: the measurement will likely say one at a time");
      try {
        measured = run_interference_calibration(env);
      } catch (const std::exception& error) {
        progress.note(std::string("warning: the interference calibration failed (") + error.what() + "); timing one at a time");
      }
    }
  }
  TimingPlan plan = plan_timing(spec, measured, syscall_filter_built());
  progress.note("timing: " + plan.mode + ", because " + plan.why);
  return plan;
}

}  // namespace

BatchCounts run_batch(const Environment& env, const LabSpec& spec, const std::vector<Submission>& students,
                      const ResultStore& store, const BatchRun& run, BatchProgress& progress) {
  BatchCounts counts;
  std::vector<const Submission*> todo;
  for (const auto& s : students) {
    if (!run.force && store.finished(s.id)) {
      ++counts.skipped;
      continue;
    }
    todo.push_back(&s);
  }

  // --quick times nothing; --gpus makes each GPU its own timing slot.
  const TimingPlan plan = run.grading.quick || !run.gpus.empty() || todo.empty()
                              ? TimingPlan{}
                              : plan_class_timing(env, spec, run.one_at_a_time, progress);
  TimingGate timing_gate(plan.gate);
  StudentGrading grading = run.grading;
  if (!plan.mode.empty()) grading.timing_mode = plan.mode;
  grading.timing_gate = &timing_gate;
  std::mutex counts_mutex;
  ClassGrading shared{env, spec, store, run, progress, counts, counts_mutex};
  if (!run.gpus.empty()) {
    grade_on_each_gpu(shared, todo, grading);
    return counts;
  }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr stopped_by;

  auto worker = [&] {
    keep_thread_on(plan.between_turns_cpus);  // a timing slot's CPU is its timed student's alone
    while (!stop) {
      const std::size_t index = next++;
      if (index >= todo.size()) return;
      try {
        grade_and_store(shared, *todo[index], grading);
      } catch (...) {
        // A missing toolchain, or a store that cannot be written (a full disk): nothing more can be graded.
        std::lock_guard lock(counts_mutex);
        if (!stopped_by) stopped_by = std::current_exception();
        stop = true;
      }
    }
  };

  const int threads = std::max(1, std::min<int>(run.jobs, static_cast<int>(todo.size())));
  std::vector<std::thread> pool;
  for (int i = 0; i < threads && !todo.empty(); ++i) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (stopped_by) std::rethrow_exception(stopped_by);
  return counts;
}

ClassOutputs write_class_outputs(const LabSpec& spec, const ResultStore& store, const std::vector<Submission>& roster,
                                 const nlohmann::json& reference) {
  const std::vector<nlohmann::json> reports = store.all_results();
  ClassOutputs outputs;
  outputs.students = reports.size();
  std::set<std::string> finished;
  for (const auto& r : reports) finished.insert(r["batch"].value("student", ""));
  for (const auto& s : roster)  // a report holds the id made valid UTF-8 (core/utf8.h)
    if (!finished.count(valid_utf8(s.id))) outputs.not_graded.push_back(s.id);
  write_file_atomically(store.folder() / "grades.csv", gradebook_csv(spec, reports));
  SummaryFacts facts;
  facts.roster_size = roster.size();
  facts.not_graded = outputs.not_graded;
  facts.gpu_section = gpu_summary_markdown(store.folder(), reports);
  write_file_atomically(store.folder() / "summary.md", summary_markdown(spec, reports, facts));
  // Each student's page beside their JSON, and the class's, from the same stored reports.
  for (const auto& report : reports)
    write_file_atomically(store.folder() / (report["batch"].value("file", file_stem(report["batch"].value("student", ""))) + ".html"),
                          render_html_report(report, reference));
  const bool similarity = std::filesystem::exists(store.folder() / "similarity.html");  // similarity/report.h
  write_file_atomically(store.folder() / "report.html", class_dashboard_html(spec, reports, reference, similarity));
  return outputs;
}

}  // namespace grader
