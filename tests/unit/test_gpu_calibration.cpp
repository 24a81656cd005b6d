// test_gpu_calibration.cpp: each GPU's calibration kept by its UUID (grader/src/calibrate/calibration.h), read back
// only for the GPU that measured it. Measuring needs a GPU; the gpu-labelled tests and `grader calibrate --gpus` do it.
#include <doctest/doctest.h>

#include <fstream>

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
