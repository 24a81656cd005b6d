// test_batch_gpu_failure.cpp: when a grading shows its GPU failed (grader/src/batch/gpu_failure.h). The judge's
// device-level CUDA errors count; the student's own crashes and words never do, whatever they say.
#include <doctest/doctest.h>

#include "batch/gpu_failure.h"

using namespace grader;

namespace {

Report with_case(const std::string& details, Verdict verdict = Verdict::internal_error) {
  Report report;
  TestResult test{"wide", TestKind::correctness, verdict, 0, 10, "", Visibility::visible, {}, {}, {}};
  test.cases.push_back({"wide 4096", "warp", verdict, details, Visibility::visible});
  report.tests.push_back(test);
  return report;
}

Report with_timed(const std::string& details) {
  Report report;
  report.tests.push_back({"warp speedup", TestKind::performance, Verdict::internal_error, 0, 10, details, Visibility::visible, {}, {}, {}});
  return report;
}

}  // namespace

TEST_CASE("the judge's device-level errors are the GPU's") {
  CHECK(gpu_failure_in(with_case("the judge failed: the lab's harness failed in setup: cudaErrorNoDevice (no CUDA-capable "
                                 "device is detected) from cudaMalloc at harness.cu:40")) ==
        "the judge failed with cudaErrorNoDevice (wide: wide 4096 [warp])");
  CHECK(gpu_failure_in(with_case("the judge failed: killed by SIGABRT; stderr: labkit: cudaErrorECCUncorrectable "
                                 "(uncorrectable ECC error encountered)"))
            .find("cudaErrorECCUncorrectable") != std::string::npos);
  CHECK(gpu_failure_in(with_case("the judge failed: killed by SIGABRT; stderr: labkit: cudaErrorLaunchFailure (unspecified "
                                 "launch failure) after launching gemv_naive"))
            .find("cudaErrorLaunchFailure") != std::string::npos);
  CHECK(gpu_failure_in(with_timed("the judge failed on a timed call's inputs: cudaErrorDevicesUnavailable (CUDA-capable "
                                  "device(s) is/are busy or unavailable)")) ==
        "the judge failed with cudaErrorDevicesUnavailable (warp speedup)");
  CHECK(gpu_failure_in(with_timed("the judge's cublas failed: NVRM: GPU has fallen off the bus"))
            .find("fallen off the bus") != std::string::npos);
}

TEST_CASE("the judge running out of memory is not the GPU's: the candidate may hold it") {
  CHECK(gpu_failure_in(with_case("the judge failed: cudaErrorMemoryAllocation (out of memory) from cudaMalloc")).empty());
  CHECK(device_error_in("cudaErrorMemoryAllocation (out of memory)").empty());
}

TEST_CASE("the student's own failures never retire a GPU, whatever they print") {
  CHECK(gpu_failure_in(with_case("the warp version crashed: killed by SIGABRT; stderr: labkit: cudaErrorIllegalAddress "
                                 "(an illegal memory access was encountered)", Verdict::crash)).empty());
  CHECK(gpu_failure_in(with_case("an exception escaped the code: cudaErrorNoDevice", Verdict::crash)).empty());
  // A student who prints the judge's words on stderr still only crashed.
  CHECK(gpu_failure_in(with_case("killed by SIGSEGV; stderr: the judge failed: GPU has fallen off the bus", Verdict::crash)).empty());
  CHECK(gpu_failure_in(with_timed("the candidate failed: Xid 79")).empty());
  Report printed = with_case("3 runs passed", Verdict::passed);
  printed.candidate_output = "the judge failed: cudaErrorECCUncorrectable\nGPU has fallen off the bus\n";
  CHECK(gpu_failure_in(printed).empty());
  CHECK(gpu_failure_in(Report{}).empty());
}
