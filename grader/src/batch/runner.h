// runner.h: grades a list of students on this machine. Builds and correctness runs go on in parallel
// (`jobs` students at a time); performance measurements pass one timing gate (pipeline/timing_gate.h), so only
// one student is ever being timed and nothing else of the class runs beside it. With --gpus (`gpus` below), one student per
// GPU instead, each GPU its own timing slot, claimed once the student's build is done (batch/gpu_slots.h). Each
// student's files are stored the moment they are known; students already finished are skipped unless `force`, and
// one graded again is recorded in the regrade log (batch/audit.h) with their old and new score.
//
//   BatchRun run;  run.jobs = 2;  run.grading.batch_seed = 42;
//   BatchCounts counts = run_batch(env, spec, students, store, run, progress);
//   write_class_outputs(spec, store, roster);   // grades.csv and summary.md, from every stored report
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "batch/gpu_slots.h"
#include "batch/progress.h"
#include "batch/roster.h"
#include "batch/store.h"
#include "batch/student.h"
#include "core/environment.h"
#include "spec/lab_spec.h"

namespace grader {

struct BatchRun {
  int jobs = 1;
  bool force = false;       // regrade students who are already finished
  bool gradescope = false;  // also <id>.results.json
  std::string reason;       // --reason: recorded with each regrade (batch/audit.h)
  bool bundles = true;      // also <id>.bundle, each student's replay bundle
  // --one-at-a-time: one timing slot, nothing beside it, whatever the interference calibration allows
  // (batch/timing_plan.h).
  bool one_at_a_time = false;
  StudentGrading grading;   // seed, --quick, archive limits, scratch folder (run_batch sets the timing mutex)
  // --gpus: one student per GPU at a time, each GPU its own timing slot (batch/gpu_slots.h); empty: the machine's
  // one timing slot. With each GPU's own calibration by UUID (batch/gpu_batch.h's calibrate_gpus).
  std::vector<Gpu> gpus;
  std::map<std::string, GpuCalibration> gpu_calibrations;
};

struct BatchCounts {
  std::size_t graded = 0;
  std::size_t skipped = 0;  // already finished
  std::size_t internal_errors = 0;
  std::size_t failed = 0;   // graded with a status other than passed
  std::vector<RetiredGpu> retired_gpus;    // --gpus: taken out of rotation during this run
  std::vector<std::string> left_ungraded;  // --gpus: no GPU was left for them (a later run grades them)
};

// Before any student: builds the lab's own code once (so parallel gradings only read the cache) and, for a
// timed batch of a lab graded against the roofline, calibrates this machine once. Throws CommandFailure-free
// std::runtime_error / LabBuildError / MissingToolchain when the lab cannot be graded at all.
void prepare_lab(const Environment& env, const LabSpec& spec, bool quick, BatchProgress& progress);

// Throws MissingToolchain (after the students in flight are stored) when the compiler is gone.
BatchCounts run_batch(const Environment& env, const LabSpec& spec, const std::vector<Submission>& students,
                      const ResultStore& store, const BatchRun& run, BatchProgress& progress);

// With --gradescope: the students of `students` finished in an earlier run without Gradescope files get them now,
// written from their stored reports (batch/stored_report.h), without grading again. Returns how many.
std::size_t write_missing_gradescope(const ResultStore& store, const std::vector<Submission>& students);

struct ClassOutputs {
  std::size_t students = 0;  // rows in grades.csv
  std::vector<std::string> not_graded;  // in the roster, not finished
};

// grades.csv, summary.md, report.html (the class dashboard) and each student's <id>.html, regenerated from every
// finished report in the store. `reference`: the selftest's figures for the roofline (report/reference_points.h), or null.
ClassOutputs write_class_outputs(const LabSpec& spec, const ResultStore& store, const std::vector<Submission>& roster,
                                 const nlohmann::json& reference = nullptr);

}  // namespace grader
