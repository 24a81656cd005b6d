#include "batch/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <exception>
#include <set>
#include <thread>

#include "batch/audit.h"
#include "batch/dashboard.h"
#include "batch/gradebook.h"
#include "batch/summary.h"
#include "build/build.h"
#include "calibrate/calibration.h"
#include "core/utf8.h"
#include "report/html_report.h"
#include "report/verdict.h"

namespace grader {

namespace {

// The one-minute load average above the machine's hardware threads.
bool busy_machine() {
  std::ifstream loadavg("/proc/loadavg");
  double load = 0;
  return (loadavg >> load) && load > std::max(1u, std::thread::hardware_concurrency()) + 0.5;
}

}  // namespace

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

  std::mutex performance_mutex;
  StudentGrading grading = run.grading;
  grading.performance_mutex = &performance_mutex;

  std::mutex counts_mutex;
  std::atomic<std::size_t> next{0};
  std::atomic<bool> stop{false};
  std::exception_ptr stopped_by;

  auto worker = [&] {
    while (!stop) {
      const std::size_t index = next++;
      if (index >= todo.size()) return;
      const Submission& student = *todo[index];
      progress.started(student.id);
      StudentGrading mine = grading;
      mine.progress = [&progress, &student](const std::string& line) { progress.step(student.id, line); };
      if (run.bundles) mine.bundle = store.bundle_path(student.id);
      // A regrade replays the seed the student's report was graded with.
      std::optional<std::uint64_t> seed;
      const std::optional<nlohmann::json> previous = store.result(student.id);
      if (previous && previous->contains("seed") && (*previous)["seed"].is_number_unsigned())
        seed = (*previous)["seed"].get<std::uint64_t>();
      try {
        GradedStudent graded = grade_student(env, spec, student, mine, seed);
        const StudentFiles files = student_files(graded, run.gradescope);
        store.save(student.id, files);
        const std::string status = student_status(files.report);  // the gradebook's words
        if (previous)
          record_regrade(store.folder(), {files.report["batch"].value("graded_at", ""), valid_utf8(student.id),
                                          previous->value("score", 0.0), graded.report.score, graded.report.max_score,
                                          student_status(*previous), status, run.reason});
        {
          std::lock_guard lock(counts_mutex);
          ++counts.graded;
          // A test the grader failed on (the judge could not start) is as much an internal error as a report that is one.
          if (graded.report.verdict == Verdict::internal_error || status == "internal_error") ++counts.internal_errors;
          if (status != "passed") ++counts.failed;
        }
        progress.finished(student.id, graded.report.score, graded.report.max_score, status, graded.report.wall_seconds);
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
  write_file_atomically(store.folder() / "summary.md", summary_markdown(spec, reports, facts));
  // Each student's page beside their JSON, and the class's, from the same stored reports.
  for (const auto& report : reports)
    write_file_atomically(store.folder() / (report["batch"].value("file", file_stem(report["batch"].value("student", ""))) + ".html"),
                          render_html_report(report, reference));
  write_file_atomically(store.folder() / "report.html", class_dashboard_html(spec, reports, reference));
  return outputs;
}

}  // namespace grader
