// test_batch_gpu_batch.cpp: what `grader batch --gpus` does around one grading (grader/src/batch/gpu_batch.h): the
// verdict on the GPU after it (the judge's errors, nvidia-smi's answers and its ECC count, through the test hook
// GRADER_TEST_NVIDIA_SMI), the record of a retired GPU and summary.md's lines on GPUs.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>

#include "batch/gpu_batch.h"
#include "temp_dir.h"

using namespace grader;
namespace fs = std::filesystem;

namespace {

const Gpu gpu0{0, "GPU-00000000-0000-4000-8000-000000000000", "Fake H200"};
const Gpu gpu1{1, "GPU-11111111-1111-4111-8111-111111111111", "Fake H200"};

// A fake nvidia-smi over files in `dir`: `list` (the GPUs it lists) and `ecc` (the ECC count it reports).
struct FakeSmi {
  TempDir dir{"test-gpu-batch"};
  std::optional<std::string> old_hook;
  FakeSmi() {
    const fs::path script = dir.path() / "nvidia-smi";
    const std::string list = (dir.path() / "list").string(), ecc = (dir.path() / "ecc").string();
    std::ofstream(script) << "#!/bin/sh\n"
                             "case \"$3\" in *ecc.errors*) cat '" + ecc + "'; exit 0;; esac\n"
                             "grep -F \"$2\" '" + list + "' || { echo 'No devices were found'; exit 6; }\n";
    ::chmod(script.c_str(), 0755);
    set_list("0, " + gpu0.uuid + ", Fake H200\n1, " + gpu1.uuid + ", Fake H200\n");
    set_ecc("0");
    if (const char* old = std::getenv("GRADER_TEST_NVIDIA_SMI")) old_hook = old;
    ::setenv("GRADER_TEST_NVIDIA_SMI", script.c_str(), 1);
  }
  ~FakeSmi() {
    if (old_hook) ::setenv("GRADER_TEST_NVIDIA_SMI", old_hook->c_str(), 1);
    else ::unsetenv("GRADER_TEST_NVIDIA_SMI");
  }
  void set_list(const std::string& text) { std::ofstream(dir.path() / "list") << text; }
  void set_ecc(const std::string& text) { std::ofstream(dir.path() / "ecc") << text << "\n"; }
};

Report judge_failed(const std::string& details) {
  Report report;
  TestResult test{"wide", TestKind::correctness, Verdict::internal_error, 0, 10, "", Visibility::visible, {}, {}, {}};
  test.cases.push_back({"wide 4096", "warp", Verdict::internal_error, details, Visibility::visible});
  report.tests.push_back(test);
  return report;
}

}  // namespace

TEST_CASE("after a grading: the judge's device errors, a GPU gone, ECC errors risen") {
  FakeSmi smi;
  ClaimedGpu claimed{gpu1, 0};
  CHECK(gpu_failure_after(Report{}, claimed).empty());
  CHECK(gpu_failure_after(judge_failed("the judge failed: cudaErrorNoDevice (no CUDA-capable device is detected)"), claimed) ==
        "the judge failed with cudaErrorNoDevice (wide: wide 4096 [warp])");
  // A grading that never claimed a GPU (it did not build) cannot have broken one.
  CHECK(gpu_failure_after(judge_failed("the judge failed: cudaErrorNoDevice"), ClaimedGpu{}).empty());

  smi.set_ecc("2");
  CHECK(gpu_failure_after(Report{}, claimed) == "its uncorrectable ECC errors rose from 0 to 2 during the grading");
  CHECK(gpu_failure_after(Report{}, ClaimedGpu{gpu1, 2}).empty());
  smi.set_ecc("[N/A]");  // no ECC on this GPU: nothing to compare
  CHECK(gpu_failure_after(Report{}, claimed).empty());

  smi.set_list("0, " + gpu0.uuid + ", Fake H200\n");
  CHECK(gpu_failure_after(Report{}, claimed).find("nvidia-smi no longer answers for it") == 0);
  CHECK(gpu_failure_after(Report{}, ClaimedGpu{gpu0, std::nullopt}).empty());
}

TEST_CASE("a grading's ECC count at its claim is the one the check after the GPU's last grading read") {
  FakeSmi smi;
  // A GPU no other test case checks: the counts are remembered for the grader's life, by UUID.
  const Gpu gpu2{2, "GPU-22222222-2222-4222-8222-222222222222", "Fake H200"};
  smi.set_list("2, " + gpu2.uuid + ", Fake H200\n");
  const ClaimGpu claim_gpu2 = [gpu2] { return gpu2; };
  const std::map<std::string, GpuCalibration> no_calibrations;  // outlives the claims: on_claimed_gpu keeps a reference
  smi.set_ecc("4");
  ClaimedGpu first;
  const StudentGrading graded_first = on_claimed_gpu(StudentGrading{}, claim_gpu2, first, no_calibrations);
  graded_first.claim_gpu();
  REQUIRE(first.gpu);
  smi.set_ecc("7");  // risen since the claim: this grading is voided, and 7 is what the next one starts from
  CHECK(gpu_failure_after(Report{}, first) == "its uncorrectable ECC errors rose from 4 to 7 during the grading");
  smi.set_ecc("9");  // not asked at the next claim: nothing ran on the GPU since the check read 7
  ClaimedGpu second;
  const StudentGrading graded_second = on_claimed_gpu(StudentGrading{}, claim_gpu2, second, no_calibrations);
  graded_second.claim_gpu();
  CHECK(second.ecc_errors_before == 7);
  CHECK(gpu_failure_after(Report{}, second) == "its uncorrectable ECC errors rose from 7 to 9 during the grading");
}

TEST_CASE("summary.md names the students each GPU graded and every GPU retired") {
  TempDir out("test-gpu-summary");
  CHECK(gpu_summary_markdown(out.path(), {}).empty());
  const auto report_on = [](const std::string& student, const Gpu* gpu) {
    nlohmann::json machine = {{"hostname", "node7"}};
    if (gpu) machine.update({{"gpu_index", gpu->index}, {"gpu_uuid", gpu->uuid}});
    return nlohmann::json{{"batch", {{"student", student}}}, {"machine", machine}};
  };
  // A batch without --gpus: nothing to say.
  CHECK(gpu_summary_markdown(out.path(), {report_on("alice", nullptr)}).empty());

  const std::vector<nlohmann::json> reports = {report_on("alice", &gpu0), report_on("bob", &gpu0), report_on("carol", &gpu1)};
  std::string md = gpu_summary_markdown(out.path(), reports);
  CHECK(md.find("node7 GPU 0 (" + gpu0.uuid + "): 2 student(s).") != std::string::npos);
  CHECK(md.find("node7 GPU 1 (" + gpu1.uuid + "): 1 student(s).") != std::string::npos);
  CHECK(md.find("out of rotation") == std::string::npos);

  record_retired_gpu(out.path(), gpu1, "nvidia-smi no longer lists it", "dave");
  REQUIRE(fs::is_directory(out.path() / "gpu-retired"));
  md = gpu_summary_markdown(out.path(), reports);
  CHECK(md.find("**GPU taken out of rotation:** GPU 1 (" + gpu1.uuid + ")") != std::string::npos);
  CHECK(md.find("while grading dave: nvidia-smi no longer lists it.") != std::string::npos);
  // A record that cannot be read is still shown, not skipped.
  std::ofstream(out.path() / "gpu-retired" / "broken.json") << "{";
  CHECK(gpu_summary_markdown(out.path(), reports).find("an unreadable record: broken.json") != std::string::npos);
}
