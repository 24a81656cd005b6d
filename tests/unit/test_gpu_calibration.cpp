// test_gpu_calibration.cpp: each GPU's calibration kept by its UUID (grader/src/calibrate/calibration.h), read back
// only for the GPU that measured it, and the GPU a single grading is keyed by (batch/gpu_inventory.h, grading_gpu):
// the one SLURM gave its job, not an index relative to CUDA_VISIBLE_DEVICES. Measuring needs a GPU; the
// gpu-labelled tests and `grader calibrate --gpus` do it.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <optional>
#include <string>

#include "batch/gpu_inventory.h"
#include "calibrate/calibration.h"
#include "temp_dir.h"

using namespace grader;

namespace {

// What gpu_calibrate.cu prints, and run_gpu_calibrations keeps with the GPU's UUID.
std::string calibration_json(const std::string& uuid, double read_gbps) {
  return "{\"uuid\": \"" + uuid + "\", \"gpu\": \"NVIDIA H200\", \"gpu_arch\": \"sm_90\", \"gpu_bandwidth_gbps\": 4200, "
         "\"gpu_read_bandwidth_gbps\": " + std::to_string(read_gbps) + ", \"gpu_sgemm_tflops\": 51.5, "
         "\"gpu_dgemm_tflops\": 61.3, \"gpu_h2d_pinned_gbps\": 55, \"gpu_d2h_pinned_gbps\": 55, \"gpu_rounds\": 3, "
         "\"gpu_stable\": true}";
}

}  // namespace

TEST_CASE("a GPU's calibration is kept by its UUID and read back for that GPU only") {
  TempDir dir("test-gpu-calibration");
  Environment env;
  env.cache = dir.path();
  const std::string first = "GPU-5f0c2a7e-9a1b-4c3d-8e2f-1a2b3c4d5e6f", second = "GPU-0e1d2c3b-4a59-6877-8899-aabbccddeeff";
  CHECK(gpu_calibration_path(env, first) == dir.path() / "calibration" / (first + ".json"));
  CHECK(gpu_calibration_path(env, first) != gpu_calibration_path(env, second));
  // A UUID is only ever letters, digits and dashes in the file name, whatever the string held.
  CHECK(gpu_calibration_path(env, "GPU-../../x").filename() == "GPU-______x.json");

  CHECK_FALSE(load_gpu_calibration(env, first));
  std::filesystem::create_directories(dir.path() / "calibration");
  std::ofstream(gpu_calibration_path(env, first)) << calibration_json(first, 4800);
  const auto loaded = load_gpu_calibration(env, first);
  REQUIRE(loaded);
  CHECK(loaded->read_bandwidth_gbps == 4800);
  CHECK(loaded->name == "NVIDIA H200");
  CHECK(loaded->stable);

  // Another GPU's figures copied under this GPU's name are not this GPU's.
  std::ofstream(gpu_calibration_path(env, second)) << calibration_json(first, 4700);
  CHECK_FALSE(load_gpu_calibration(env, second));
  // A damaged file is as good as none: calibrate again.
  std::ofstream(gpu_calibration_path(env, second)) << "{\"uuid\": \"" + second + "\", \"gpu\": ";
  CHECK_FALSE(load_gpu_calibration(env, second));
}

TEST_CASE("grader calibrate's GPU figures are kept by the grading GPU's UUID too, and only where it measured a GPU") {
  TempDir dir("test-gpu-calibration-machine");
  Environment env;
  env.cache = dir.path();
  const std::string uuid = "GPU-5f0c2a7e-9a1b-4c3d-8e2f-1a2b3c4d5e6f";
  CHECK_FALSE(keep_machine_gpu_calibration(env, uuid));  // no calibration at all
  std::filesystem::create_directories(calibration_path(env).parent_path());
  // The machine's calibration: the CPU's figures, and gpu_calibrate.cu's merged in (its keys are all gpu...).
  std::string machine = calibration_json(uuid, 4750);
  machine.replace(machine.find("\"uuid\""), 0, "\"rounds\": 5, \"stable\": true, \"bandwidth_1t_gbps\": 15.7, ");
  std::ofstream(calibration_path(env)) << machine;
  REQUIRE(keep_machine_gpu_calibration(env, uuid));
  const auto kept = load_gpu_calibration(env, uuid);
  REQUIRE(kept);
  CHECK(kept->read_bandwidth_gbps == 4750);
  CHECK(kept->sgemm_tflops == 51.5);
  CHECK(kept->rounds == 3);  // the GPU's rounds, not the CPU's
  // A machine calibrated without a GPU keeps nothing for one.
  const std::string other = "GPU-0e1d2c3b-4a59-6877-8899-aabbccddeeff";
  std::ofstream(calibration_path(env)) << "{\"rounds\": 5, \"stable\": true}";
  CHECK_FALSE(keep_machine_gpu_calibration(env, other));
  CHECK_FALSE(std::filesystem::exists(gpu_calibration_path(env, other)));
  // Nor does one whose GPU figures are incomplete.
  std::ofstream(calibration_path(env)) << "{\"gpu\": \"NVIDIA H200\", \"gpu_arch\": \"sm_90\"}";
  CHECK_FALSE(keep_machine_gpu_calibration(env, other));
  CHECK_FALSE(std::filesystem::exists(gpu_calibration_path(env, other)));
}

namespace {

// A node of four GPUs as nvidia-smi lists it.
const std::string four_gpus =
    "0, GPU-00000000-aaaa-4c3d-8e2f-1a2b3c4d5e6f, NVIDIA H100 80GB HBM3\n"
    "1, GPU-11111111-bbbb-6877-8899-aabbccddeeff, NVIDIA H100 80GB HBM3\n"
    "2, GPU-22222222-cccc-4c3d-8e2f-1a2b3c4d5e6f, NVIDIA H100 80GB HBM3\n"
    "3, GPU-33333333-dddd-6877-8899-aabbccddeeff, NVIDIA H100 80GB HBM3\n";

struct ScopedVariable {
  std::string name;
  std::optional<std::string> old;
  ScopedVariable(std::string n, const std::optional<std::string>& value) : name(std::move(n)) {
    if (const char* v = std::getenv(name.c_str())) old = v;
    if (value) ::setenv(name.c_str(), value->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
  ~ScopedVariable() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST_CASE("a grading's GPU is the one its job was given, named by UUID, not by its index") {
  const auto node = parse_gpu_inventory(four_gpus);
  // SLURM without device cgroups: nvidia-smi lists the node's four, CUDA_VISIBLE_DEVICES names the job's by index.
  CHECK(grading_gpu(node, "2")->uuid == "GPU-22222222-cccc-4c3d-8e2f-1a2b3c4d5e6f");
  CHECK(grading_gpu(node, "3,1")->uuid == "GPU-33333333-dddd-6877-8899-aabbccddeeff");  // CUDA's device 0: the first named
  CHECK(grading_gpu(node, "GPU-11111111")->index == 1);  // by (a prefix of) its UUID
  CHECK(grading_gpu(node, "")->index == 0);              // nothing set: CUDA's device 0 is the node's first
  // With device cgroups nvidia-smi lists the job's one GPU, which CUDA_VISIBLE_DEVICES may number otherwise.
  const auto one = parse_gpu_inventory("0, GPU-33333333-dddd-6877-8899-aabbccddeeff, NVIDIA H100 80GB HBM3\n");
  CHECK(grading_gpu(one, "3")->uuid == "GPU-33333333-dddd-6877-8899-aabbccddeeff");
  // Several listed and a number none has: which one CUDA uses is not known, so no GPU's figures are taken.
  CHECK_FALSE(grading_gpu(node, "7"));
  CHECK_FALSE(grading_gpu({}, ""));
}

TEST_CASE("a job's GPU is never held to the login node's figures, nor to another GPU's of its node") {
  TempDir dir("test-gpu-calibration-job");
  Environment env;
  env.cache = dir.path() / "shared-home-cache";  // the login node's cache, seen by the nodes through a shared home
  std::filesystem::create_directories(env.cache / "calibration");
  // The login node calibrated its own GPU, and GPU 0 of the node, in that shared cache.
  const std::string login_gpu = "GPU-99999999-eeee-4c3d-8e2f-1a2b3c4d5e6f";
  std::ofstream(gpu_calibration_path(env, login_gpu)) << calibration_json(login_gpu, 900);
  std::ofstream(gpu_calibration_path(env, "GPU-00000000-aaaa-4c3d-8e2f-1a2b3c4d5e6f"))
      << calibration_json("GPU-00000000-aaaa-4c3d-8e2f-1a2b3c4d5e6f", 3300);

  // The node's nvidia-smi (the test hook), listing all four; SLURM gave the job GPU 2.
  const auto fake = dir.path() / "fake-smi";
  std::ofstream(fake) << "#!/bin/sh\ncat <<'EOF'\n" << four_gpus << "EOF\n";
  ::chmod(fake.c_str(), 0755);
  ScopedVariable hook("GRADER_TEST_NVIDIA_SMI", fake.string());
  ScopedVariable visible("CUDA_VISIBLE_DEVICES", "2");
  const auto listed = list_gpus();  // every GPU of the node, whatever CUDA_VISIBLE_DEVICES says
  REQUIRE(listed);
  CHECK(listed->size() == 4);
  const auto gpu = grading_gpu(*listed, "2");
  REQUIRE(gpu);
  CHECK(gpu->uuid == "GPU-22222222-cccc-4c3d-8e2f-1a2b3c4d5e6f");
  // Not calibrated yet: nothing to read, so the grading measures it (fresh the first time), and keeps it by UUID.
  CHECK_FALSE(load_gpu_calibration(env, gpu->uuid));
  CHECK(gpu_calibration_path(env, gpu->uuid).filename() == "GPU-22222222-cccc-4c3d-8e2f-1a2b3c4d5e6f.json");
  std::ofstream(gpu_calibration_path(env, gpu->uuid)) << calibration_json(gpu->uuid, 3350);
  CHECK(load_gpu_calibration(env, gpu->uuid)->read_bandwidth_gbps == 3350);
}
