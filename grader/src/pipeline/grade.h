// grade.h: grades one submission of one lab, stage by stage (stage, build, policy, run, check, measure,
// score), and returns the report. Student failures become verdicts in the report; only a broken
// environment (no compiler) escapes as an exception.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "calibrate/calibration.h"
#include "core/environment.h"
#include "pipeline/timing_gate.h"
#include "report/report.h"
#include "spec/lab_spec.h"

namespace grader {

// The GPU a batch with --gpus gives one grading (batch/gpu_slots.h): its workers see only this one.
struct GpuAssignment {
  int index = -1;
  std::string uuid;  // CUDA_VISIBLE_DEVICES of every worker of the grading
  std::optional<GpuCalibration> calibration;  // this GPU's own (calibrate/calibration.h), when it has one
};

struct GradeOptions {
  std::filesystem::path submission;
  std::uint64_t seed = 0;        // the run's seed; every case's seed is derived from it and the case's name
  bool quick = false;            // correctness only
  bool include_hidden = false;   // staff runs: hidden cases and items too
  bool keep_workdir = false;     // leave the work directory for inspection
  // Correctness only, no timing. CUDA labs: "memcheck" or "racecheck", the candidate under compute-sanitizer.
  // CPU labs: "address", "undefined" or "address,undefined", the candidate built with GCC's sanitizers.
  std::string sanitize;
  std::string only;              // one item's name: grade it (and the correctness items a timed one needs) alone
  // Counters from one more call of each timed item, outside the timed rounds, for the report's look: CPU
  // performance counters read by the grader (measure/cpu_counters.h) in a CPU lab, Nsight Compute in a CUDA lab on
  // a GPU (pipeline/counters_stage.cpp). On for a student's grading; off with --no-counters, and in a batch unless
  // it asks (--counters). They never change a point.
  bool counters = true;
  std::function<void(const std::string&)> progress;  // one-line status updates, may be empty
  // A batch on this machine's CPUs: the grading's builds and correctness runs are its work, and its timing waits
  // until no other grading works or times (pipeline/timing_gate.h). Null: a grading alone.
  TimingGate* timing_gate = nullptr;
  std::filesystem::path keep_staged_in;     // non-empty: the staged files are copied here (a replay bundle's)
  // Set by `grader batch --gpus`: called once, when the build is done and before any worker starts (so builds
  // never hold a GPU); may block until a GPU is free, and throws when none is left.
  std::function<GpuAssignment()> claim_gpu;
};

// Whether `sanitize` names compiler sanitizers (a CPU lab's) rather than a compute-sanitizer tool.
bool is_compiler_sanitizer(const std::string& sanitize);

Report grade_submission(const Environment& env, const LabSpec& spec, const GradeOptions& options);

// A fresh seed for a run: unpredictable to the submission (it only ever sees the case seeds derived from it).
std::uint64_t fresh_seed();

// The seed of one case or benchmark: a mix of the run's seed and the case's name, so each case gets its
// own inputs and a run replays exactly from the run's seed.
std::uint64_t derive_seed(std::uint64_t run_seed, const std::string& name);

}  // namespace grader
