// student.h: grades one student of a batch. Every outcome is a report: a refused archive, a submission that
// does not build, crashes or hangs (the pipeline's verdicts), and a failure of the grader itself
// (internal_error, writers.h's internal_error_report). Only a missing toolchain escapes, as MissingToolchain:
// it would fail every student alike, so the batch stops instead of recording it against each of them. So does
// NoGpuLeft (batch/gpu_slots.h): the student is left ungraded, not graded as an internal error.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "batch/archive.h"
#include "batch/roster.h"
#include "batch/store.h"
#include "core/environment.h"
#include "pipeline/grade.h"
#include "report/report.h"
#include "spec/lab_spec.h"

namespace grader {

struct StudentGrading {
  std::uint64_t batch_seed = 0;
  bool quick = false;
  // --counters: each timed item's counters from one more call (GradeOptions::counters): CPU counters in a CPU lab,
  // Nsight Compute in a CUDA lab. Off by default in a batch: it costs time per student (docs/ta-guide.md).
  bool counters = false;
  UnpackLimits limits;
  std::filesystem::path scratch;  // where each archive gets its own work folder (then removed)
  // The class's timing gate (GradeOptions::timing_gate): one student times at a time, with nothing else of the
  // class running beside it. Null: no gate (--gpus, where each GPU is its own timing slot).
  TimingGate* timing_gate = nullptr;
  // How the class's timings shared the machine (batch/timing_plan.h): "one at a time", "work beside the timing",
  // ...; kept in the report's "batch" object as `timing`. Empty: not said (--quick, --gpus).
  std::string timing_mode;
  std::function<void(const std::string&)> progress;  // the pipeline's one-line status updates
  // Non-empty: this student's replay bundle goes here (bundle/bundle.h). A submission refused before the
  // pipeline (a bad archive) has nothing to replay and gets none.
  std::filesystem::path bundle;
  // --gpus: the pipeline claims this grading's GPU here once its build is done (GradeOptions::claim_gpu).
  std::function<GpuAssignment()> claim_gpu;
};

// Each student's seed: a mix of the batch seed and the id, so one student's inputs never depend on who
// else is in the class, and a regrade replays them.
std::uint64_t student_seed(std::uint64_t batch_seed, const std::string& id);

struct GradedStudent {
  Report report;
  nlohmann::json batch;  // the report JSON's "batch" object (batch/store.h)
};

// `seed`: the student's seed when replaying one (a regrade reads it from their report); else derived.
GradedStudent grade_student(const Environment& env, const LabSpec& spec, const Submission& submission,
                            const StudentGrading& grading, std::optional<std::uint64_t> seed = std::nullopt);

// The report a student reads: hidden cases that failed keep their verdict but lose their name and details,
// as Gradescope's writer does, so feedback never describes a hidden case's inputs.
Report student_view(Report report);

// The files the store writes for a graded student.
StudentFiles student_files(const GradedStudent& graded, bool gradescope);

}  // namespace grader
