// gpu_batch.h: what `grader batch --gpus` adds around one student's grading (batch/runner.h runs the class, and
// batch/gpu_slots.h shares the GPUs out): each GPU's calibration, the pipeline's claim of a GPU, the check after a
// grading that its GPU did not fail, the record of a GPU taken out of rotation, and summary.md's section on GPUs.
//
//   <out>/gpu-retired/<UTC time>-<uuid>.json   one per GPU taken out of rotation: when, the host, the GPU, why, and
//                                              whose grading showed it (discarded, and graded again elsewhere)
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "batch/gpu_slots.h"
#include "batch/progress.h"
#include "batch/student.h"
#include "calibrate/calibration.h"
#include "core/environment.h"
#include "spec/lab_spec.h"

namespace grader {

// Each GPU's own calibration by UUID, measured now for the GPUs without one, when a timed batch of `spec` needs
// ceilings (a roofline item). A GPU that cannot be calibrated is graded against the machine's calibration instead,
// with a warning.
std::map<std::string, GpuCalibration> calibrate_gpus(const Environment& env, const LabSpec& spec, bool quick,
                                                     const std::vector<Gpu>& gpus, BatchProgress& progress);

// The GPU one grading claimed, and its uncorrectable ECC error count at the claim.
struct ClaimedGpu {
  std::optional<Gpu> gpu;  // nothing: the grading never claimed one (it did not build)
  std::optional<long long> ecc_errors_before;
};

// `grading` whose pipeline claims its GPU from `claim` (after the build); `claimed` then names the GPU.
StudentGrading on_claimed_gpu(StudentGrading grading, const ClaimGpu& claim, ClaimedGpu& claimed,
                              const std::map<std::string, GpuCalibration>& calibrations);

// Why the grading's GPU failed, or empty: the judge's device errors (batch/gpu_failure.h), nvidia-smi no longer
// listing the GPU, or its count of uncorrectable ECC errors risen during the grading (the driver's count, which a
// student's code cannot raise without a real memory error).
std::string gpu_failure_after(const Report& report, const ClaimedGpu& claimed);

// Writes <out>/gpu-retired/...json (above).
void record_retired_gpu(const std::filesystem::path& out, const Gpu& gpu, const std::string& why, const std::string& student);

// summary.md's paragraphs on GPUs, near its top: the students each GPU graded (from the reports) and every GPU taken out of
// rotation (from <out>/gpu-retired/). Empty when no report names a GPU and none was retired.
std::string gpu_summary_markdown(const std::filesystem::path& out, const std::vector<nlohmann::json>& reports);

}  // namespace grader
