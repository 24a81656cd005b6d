// gpu_failure.h: whether a grading ended because its GPU failed rather than because of the student's code, so
// that `grader batch --gpus` discards it, takes the GPU out of rotation and grades the student again on another.
//
// Only trusted evidence counts, because a wrongly retired GPU costs the whole class time and a student must not
// be able to retire one at will:
//   - the judge (the lab's own code, never the student's) failed with a device-level CUDA error: no device, the
//     device unavailable, an uncorrectable ECC error, a launch failure or illegal address in the judge's own
//     kernels, "GPU has fallen off the bus", an Xid. Out of memory is not one of them: the candidate, alive in
//     its own process, may be holding the memory;
//   - the GPU no longer answers: nvidia-smi does not list it after the grading, or its driver's count of
//     uncorrectable ECC errors rose during the grading (batch/gpu_inventory.h, batch/gpu_batch.h).
// What the candidate printed or died of is the student's and is never read here: a student who prints
// "GPU has fallen off the bus" is graded like any other.
//
//   gpu_failure_in(report)   ""  for a student's crash;
//                            "the judge failed with cudaErrorECCUncorrectable (correctness: wide [warp])"
#pragma once

#include <string>
#include <string_view>

#include "report/report.h"

namespace grader {

// The device-level error `judge_details` (the details of a judge's failure) names, or empty.
std::string_view device_error_in(std::string_view judge_details);

// Why the report shows its GPU failed (judge evidence, above), or empty.
std::string gpu_failure_in(const Report& report);

}  // namespace grader
