#include "batch/gpu_failure.h"

#include <array>

namespace grader {

namespace {

// What the CUDA runtime (cudaGetErrorName, as the lab kit prints it) and the driver say when the device, not the
// program, is at fault. The judge's kernels are the lab's trusted code, so a launch failure or an illegal address in
// them is the device's too.
constexpr std::array device_errors = {
    std::string_view("cudaErrorNoDevice"),          std::string_view("cudaErrorDevicesUnavailable"),
    std::string_view("cudaErrorInvalidDevice"),     std::string_view("cudaErrorInsufficientDriver"),
    std::string_view("cudaErrorInitializationError"), std::string_view("cudaErrorSystemNotReady"),
    std::string_view("cudaErrorSystemDriverMismatch"), std::string_view("cudaErrorECCUncorrectable"),
    std::string_view("cudaErrorNvlinkUncorrectable"), std::string_view("cudaErrorHardwareStackError"),
    std::string_view("cudaErrorLaunchFailure"),      std::string_view("cudaErrorIllegalAddress"),
    std::string_view("cudaErrorLaunchTimeout"),      std::string_view("cudaErrorContained"),
    std::string_view("cudaErrorUnknown"),            std::string_view("uncorrectable ECC error"),
    std::string_view("GPU has fallen off the bus"),  std::string_view("Xid"),
};

bool from_the_judge(std::string_view details) { return details.rfind("the judge", 0) == 0; }

}  // namespace

std::string_view device_error_in(std::string_view judge_details) {
  for (const auto error : device_errors)
    if (judge_details.find(error) != std::string_view::npos) return error;
  return {};
}

std::string gpu_failure_in(const Report& report) {
  for (const auto& test : report.tests) {
    // A timed item's judge failure is the item's details; a correctness item's is its case's.
    if (test.kind == TestKind::performance && from_the_judge(test.details))
      if (const auto error = device_error_in(test.details); !error.empty())
        return "the judge failed with " + std::string(error) + " (" + test.name + ")";
    for (const auto& c : test.cases)
      if (from_the_judge(c.details))
        if (const auto error = device_error_in(c.details); !error.empty())
          return "the judge failed with " + std::string(error) + " (" + test.name + ": " + c.name + " [" + c.variant + "])";
  }
  return "";
}

}  // namespace grader
