// test_ceilings.cpp: an item's roofline (grader/src/measure/ceilings.h), and the rule that no ceiling sits below a
// rate the judge's own code reached in the same grading: a shared VM's bandwidth at grading time can be well above
// what `grader calibrate` saw minutes earlier, and an honest matvec then read 113% of its roofline.
#include <doctest/doctest.h>

#include "measure/ceilings.h"

using namespace grader;

namespace {

// lab 1's shape: a 10000 x 10000 matvec on one thread, read-only memory.
PerformanceItem matvec_item() {
  PerformanceItem item;
  item.name = "matvec";
  item.flops = Expr::parse("2*m*n");
  item.bytes = Expr::parse("8*(m*n + n + m)");
  item.read_only_memory = true;
  return item;
}

const Variables scope{{"m", 10000}, {"n", 10000}, {"threads", 2}};

Calibration cpu_calibration(double read_gbps_1t) {
  Calibration calibration;
  calibration.cpu.threads = 2;
  calibration.cpu.read_bandwidth_1t_gbps = read_gbps_1t;
  calibration.cpu.read_bandwidth_all_gbps = 2 * read_gbps_1t;
  calibration.cpu.bandwidth_1t_gbps = read_gbps_1t / 2;
  calibration.cpu.bandwidth_all_gbps = read_gbps_1t;
  calibration.cpu.peak_fp64_gflops_1t = 100;
  calibration.cpu.peak_fp64_gflops_all = 200;
  return calibration;
}

// A timing of the item's work at `seconds` a call, rates filled in as the grader fills them.
Timing timed_at(const PerformanceItem& item, const std::string& label, double seconds) {
  Timing timing;
  timing.label = label;
  timing.seconds = {seconds, seconds, seconds};
  fill_rates(item, scope, timing);
  return timing;
}

const double matvec_bytes = 8.0 * (10000.0 * 10000 + 20000);

}  // namespace

TEST_CASE("a calibrated roofline places the candidate against the binding ceiling") {
  const auto item = matvec_item();
  auto ceilings = roofline_ceilings(item, scope, /*gpu_lab=*/false, cpu_calibration(20));
  REQUIRE(ceilings);
  Measurement m;
  m.candidate = timed_at(item, "candidate unrolled", matvec_bytes / 16e9);  // 16 GB/s against 20
  place_on_roofline(item, scope, *ceilings, m);
  CHECK(m.roofline_fraction == doctest::Approx(0.8));
  CHECK(m.ceiling_gbps == doctest::Approx(20));
  CHECK(m.roofline_bound == "read-only memory bandwidth (1 thread, 20.0 GB/s)");
}

TEST_CASE("a ceiling the judge's code beat in this grading is raised to the judge's rate") {
  const auto item = matvec_item();
  auto ceilings = roofline_ceilings(item, scope, false, cpu_calibration(20));
  REQUIRE(ceilings);
  // The calibration saw 20 GB/s; in this grading the judge's read of A ran at 25 and the candidate at 24.
  raise_to_judge_rate(timed_at(item, "judge read_a", matvec_bytes / 25e9), *ceilings);
  Measurement m;
  m.candidate = timed_at(item, "candidate unrolled", matvec_bytes / 24e9);
  place_on_roofline(item, scope, *ceilings, m);
  CHECK(m.roofline_fraction == doctest::Approx(0.96));  // 120% against the calibration alone
  CHECK(m.ceiling_gbps == doctest::Approx(25));
  CHECK(m.roofline_bound ==
        "read-only memory bandwidth (1 thread, 20.0 GB/s; judge read_a reached 25.0 GB/s in this grading)");
  // What is possible, for the SUSPECT check, is never below what the judge did.
  CHECK(m.possible_fraction <= 1.0);
  // The compute ceiling is far from binding, and stays as calibrated.
  CHECK(m.ceiling_gflops == doctest::Approx(100));
}

TEST_CASE("a judge slower than the calibration leaves the roofline as calibrated") {
  const auto item = matvec_item();
  auto ceilings = roofline_ceilings(item, scope, false, cpu_calibration(20));
  REQUIRE(ceilings);
  const Ceilings before = *ceilings;
  raise_to_judge_rate(timed_at(item, "judge rowptr", matvec_bytes / 8e9), *ceilings);
  CHECK(ceilings->bytes_per_second == before.bytes_per_second);
  CHECK(ceilings->flops_per_second == before.flops_per_second);
  CHECK(ceilings->memory_reached.empty());
  CHECK(ceilings->compute_reached.empty());
}

TEST_CASE("of two judge timings above the calibration, the faster sets the ceiling and is the one named") {
  const auto item = matvec_item();
  auto ceilings = roofline_ceilings(item, scope, false, cpu_calibration(20));
  REQUIRE(ceilings);
  raise_to_judge_rate(timed_at(item, "judge tuned", matvec_bytes / 26e9), *ceilings);
  raise_to_judge_rate(timed_at(item, "judge read_a", matvec_bytes / 25e9), *ceilings);  // slower: no change
  Measurement m;
  m.candidate = timed_at(item, "candidate unrolled", matvec_bytes / 26e9);
  place_on_roofline(item, scope, *ceilings, m);
  CHECK(m.roofline_fraction == doctest::Approx(1.0));
  CHECK(m.roofline_bound ==
        "read-only memory bandwidth (1 thread, 20.0 GB/s; judge tuned reached 26.0 GB/s in this grading)");
}

TEST_CASE("a compute-bound judge beating the calibrated peak raises the compute ceiling") {
  PerformanceItem gemm;
  gemm.name = "gemm";
  gemm.flops = Expr::parse("2*m*n*k");
  gemm.bytes = Expr::parse("8*(m*k + k*n + 2*m*n)");
  gemm.precision = "fp32";
  Calibration calibration;
  calibration.gpu = GpuCalibration{};
  calibration.gpu->bandwidth_gbps = 3000;
  calibration.gpu->read_bandwidth_gbps = 3050;
  calibration.gpu->sgemm_tflops = 51.4;
  calibration.gpu->dgemm_tflops = 60;
  const Variables shape{{"m", 4096}, {"n", 4096}, {"k", 4096}};
  auto ceilings = roofline_ceilings(gemm, shape, /*gpu_lab=*/true, calibration);
  REQUIRE(ceilings);
  const double flops = 2.0 * 4096 * 4096 * 4096;
  Timing cublas;
  cublas.label = "judge cublas";
  cublas.seconds = {flops / 51.7e12};
  fill_rates(gemm, shape, cublas);
  raise_to_judge_rate(cublas, *ceilings);
  CHECK(ceilings->flops_per_second == doctest::Approx(51.7e12));
  CHECK(ceilings->compute_reached == "judge cublas reached 51700.0 GFLOP/s in this grading");
  CHECK(ceilings->bytes_per_second == doctest::Approx(3000e9));  // memory: far from what cuBLAS moved
}
