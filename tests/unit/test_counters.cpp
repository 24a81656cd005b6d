// test_counters.cpp: Nsight Compute's counters as the grader reads them (inspect/counters.h, inspect/ncu.h), without a
// GPU. The ncu text below is CONSTRUCTED, not captured: it follows the layout of `ncu --csv --page raw` (2025.3, as
// documented in the Nsight Compute CLI guide, "Output Pages": a header of ID, Process ID, Process Name, Host Name,
// Kernel Name, Context, Stream, Block Size, Grid Size, Device, CC, then one column per metric; a row of units; one
// row per kernel, every field quoted, numbers with thousands separators), with values shaped like lab 5's: a
// coalesced warp-per-row kernel with double2 loads (16 sectors per request) and a second small kernel, and the
// skeleton's thread-per-row kernel (32 sectors: each lane a different row). A stand-in `ncu` script (GRADER_NCU)
// plays the missing, refused and failing profiler.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "core/environment.h"
#include "inspect/counters.h"
#include "inspect/fact_list.h"
#include "inspect/look.h"
#include "inspect/ncu.h"
#include "spec/condition.h"
#include "spec/lab_spec.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

const fs::path root = fs::path(TESTS_DIR) / "..";

// Constructed (see the top of this file). Two kernels of one call, a ==PROF== line and the units row among them.
const std::string two_kernels_csv =
    R"csv(==PROF== Connected to process 4242 (/tmp/grader-lab5/candidate)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","l1tex__t_requests_pipe_lsu_mem_global_op_st.sum","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum","launch__block_size","launch__grid_size","launch__occupancy_limit_blocks","launch__occupancy_limit_registers","launch__occupancy_limit_shared_mem","launch__occupancy_limit_warps","launch__registers_per_thread","launch__shared_mem_per_block_dynamic","launch__shared_mem_per_block_static","sm__inst_executed_pipe_tensor_op_hmma.sum","sm__maximum_warps_per_active_cycle_pct","sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active","sm__warps_active.avg.pct_of_peak_sustained_active","smsp__inst_executed.sum","smsp__thread_inst_executed_per_inst_executed.ratio"
"","","","","","","","","","","","%","nsecond","","","request","request","sector","sector","","","block","block","block","block","register/thread","byte/block","byte/block","inst","%","%","%","inst","thread"
"0","4242","candidate","127.0.0.1","gemv_rows(const double *, const double *, double *, long, long)","1","7","(256, 1, 1)","(10000, 1, 1)","0","9.0","91.50","33,000","0","12","7,812,500","313","125,000,000","1,250","256","10,000","32","8","9","8","30","0","2,048","0","100","3.10","87.20","40,000,000","31.90"
"1","4242","candidate","127.0.0.1","combine_partials(const double *, double *, long)","1","7","(32, 1, 1)","(313, 1, 1)","0","9.0","1.50","2,000","n/a","n/a","1,000","313","4,000","1,250","32","313","32","64","32","64","16","0","0","0","50","0.01","20.00","100,000","30.00"
)csv";

// The skeleton's thread-per-row kernel: every lane of a warp reads a different row.
const std::string uncoalesced_csv =
    R"csv("ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum","l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum","sm__warps_active.avg.pct_of_peak_sustained_active","smsp__thread_inst_executed_per_inst_executed.ratio"
"","","","","","","","","","","","%","nsecond","request","sector","%","thread"
"0","5151","candidate","127.0.0.1","placeholder_kernel(const double *, const double *, double *, long, long)","1","7","(256, 1, 1)","(1, 1, 1)","0","9.0","0.80","900,000,000","3,125,000","100,000,000","12.40","32.00"
)csv";

void write_script(const fs::path& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  ::chmod(path.c_str(), 0755);
}

// GRADER_NCU for one test, restored after it.
struct NcuSetting {
  explicit NcuSetting(const std::string& value) { ::setenv("GRADER_NCU", value.c_str(), 1); }
  ~NcuSetting() { ::unsetenv("GRADER_NCU"); }
};

}  // namespace

TEST_CASE("ncu's raw page: one row per kernel, names, launch shape and metrics, units and ncu's own lines skipped") {
  const auto kernels = parse_ncu_raw_csv(two_kernels_csv);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "gemv_rows(const double *, const double *, double *, long, long)");
  CHECK(counters_kernel_name(kernels[0].name) == "gemv_rows");
  CHECK(kernels[0].block == "(256, 1, 1)");
  CHECK(kernels[0].grid == "(10000, 1, 1)");
  CHECK(kernels[0].metric("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") == doctest::Approx(125000000));
  CHECK(kernels[0].metric("dram__throughput.avg.pct_of_peak_sustained_elapsed") == doctest::Approx(91.5));
  // n/a is no value at all, not a zero.
  CHECK_FALSE(kernels[1].has("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"));
  CHECK_FALSE(kernels[0].has("Block Size"));
}

TEST_CASE("the call's facts: kernels weighed by their time, sectors over requests, conflicts summed") {
  const Variables facts = counter_variables(parse_ncu_raw_csv(two_kernels_csv));
  CHECK(facts.at("profiled_kernels") == 2);
  // (125,000,000 + 4,000) sectors over (7,812,500 + 1,000) requests: 16 (double2 loads, coalesced).
  CHECK(facts.at("sectors_per_load") == doctest::Approx(16.0).epsilon(0.001));
  CHECK(facts.at("sectors_per_store") == doctest::Approx(2500.0 / 626));
  CHECK(facts.at("bank_conflicts") == 12);
  // Weighted by duration: (91.5 * 33000 + 1.5 * 2000) / 35000 percent.
  CHECK(facts.at("dram_throughput") == doctest::Approx((0.915 * 33000 + 0.015 * 2000) / 35000));
  CHECK(facts.at("achieved_occupancy") == doctest::Approx((0.872 * 33000 + 0.2 * 2000) / 35000));
  CHECK(facts.at("launch_occupancy") == doctest::Approx((1.0 * 33000 + 0.5 * 2000) / 35000));
  // Weighted by instructions, so the small kernel barely moves it.
  CHECK(facts.at("thread_efficiency") == doctest::Approx((31.9 * 4e7 + 30 * 1e5) / (4e7 + 1e5)));
  CHECK(facts.at("tensor_executed") == 0);
  for (const auto& [key, value] : facts) {
    INFO(key);
    REQUIRE(find_fact(key) != nullptr);  // every counter fact is one a hint may name
    CHECK(find_fact(key)->source == FactSource::gpu_counter);
  }
  CHECK(counter_variables({}).empty());
}

TEST_CASE("the launch seen: the longest kernel's shape and its theoretical occupancy with what limits it") {
  const std::string words = seen_launch(parse_ncu_raw_csv(two_kernels_csv));
  CHECK(words.find("gemv_rows: 10000 blocks of 256 threads, 30 registers, 2048 B shared") == 0);
  CHECK(words.find("theoretical occupancy 100% (limited by registers)") != std::string::npos);
  CHECK(words.find("achieved 87%") != std::string::npos);
  CHECK(words.find("the longest of 2 kernels") != std::string::npos);
  CHECK(seen_launch({}).empty());
}

TEST_CASE("text that is not ncu's raw page is refused, not read as zeros") {
  CHECK_THROWS(parse_ncu_raw_csv("hello from the candidate\n1,2,3\n"));
  CHECK_THROWS(parse_ncu_raw_csv(""));
  // A row whose width is not the header's.
  CHECK_THROWS(parse_ncu_raw_csv("\"ID\",\"Kernel Name\",\"a__b.sum\"\n\"0\",\"k()\"\n"));
  // Only a header: ncu profiled nothing.
  CHECK(parse_ncu_raw_csv("\"ID\",\"Kernel Name\",\"a__b.sum\"\n").empty());
}

TEST_CASE("ncu's failures are named: no permission to the counters, no kernel, an error line") {
  CHECK(ncu_failure("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance "
                    "Counters on the target device 0.")
            .find("not permitted") != std::string::npos);
  CHECK(ncu_failure("==WARNING== No kernels were profiled.").find("no kernel") != std::string::npos);
  CHECK(ncu_failure("==ERROR== Failed to prepare kernel for profiling\nmore").find("ncu failed: ==ERROR== Failed") == 0);
  CHECK(ncu_failure("==PROF== Disconnected from process 12").empty());
}

TEST_CASE("which ncu: GRADER_NCU's stand-in and its version; none, or one that does not answer, is said so") {
  TempDir dir("test-counters-find");
  const Environment env = discover_environment(root);
  const fs::path fake = dir.path() / "ncu";
  write_script(fake, "echo 'NVIDIA (R) Nsight Compute Command Line Profiler'\necho 'Version 2025.3.1.0 (build 36398880) (public-release)'\n");
  {
    NcuSetting setting(fake.string());
    std::string why;
    const auto ncu = find_ncu(env, why);
    REQUIRE(ncu.has_value());
    CHECK(ncu->version == "2025.3.1.0");
    CHECK(ncu->install_dirs.front() == fs::canonical(dir.path()));
    const auto words = ncu_profile_words(*ncu, dir.path() / "counters");
    CHECK(words.front() == fake.string());
    CHECK(std::find(words.begin(), words.end(), "--profile-from-start") != words.end());
    CHECK(std::find(words.begin(), words.end(), profiled_metrics_argument()) != words.end());
  }
  {
    NcuSetting setting((dir.path() / "no-such-ncu").string());
    std::string why;
    CHECK_FALSE(find_ncu(env, why).has_value());
    CHECK(why.find("not installed") != std::string::npos);
  }
  const fs::path mute = dir.path() / "mute-ncu";
  write_script(mute, "echo 'something else'\n");
  {
    NcuSetting setting(mute.string());
    std::string why;
    CHECK_FALSE(find_ncu(env, why).has_value());
    CHECK(why.find("did not answer") != std::string::npos);
  }
}

TEST_CASE("the report read back: counters, a refused profiler, a failed import") {
  TempDir dir("test-counters-read");
  // A root grader imports as the build user (the report came from a box the submission ran in): it must get in.
  ::chmod(dir.path().c_str(), 0755);
  const fs::path csv = dir.path() / "raw.csv";
  std::ofstream(csv) << two_kernels_csv;
  const fs::path fake = dir.path() / "ncu";
  // --import FILE --csv --page raw: the constructed page; anything else fails as ncu does.
  write_script(fake, "[ \"$1\" = --import ] && [ \"$3\" = --csv ] && exec cat '" + csv.string() +
                         "'\necho '==ERROR== unexpected arguments'; exit 1\n");
  const NcuTool ncu{fake.string(), "2025.3.1.0", {dir.path()}};
  const fs::path report = dir.path() / "counters.ncu-rep";

  SUBCASE("no report, and the run said ERR_NVGPUCTRPERM: not permitted") {
    const CounterReading reading = read_ncu_report(ncu, report, "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission");
    CHECK(reading.kernels.empty());
    CHECK(reading.unavailable.find("not permitted") != std::string::npos);
  }
  SUBCASE("no report and nothing said") {
    CHECK(read_ncu_report(ncu, report, "").unavailable == "ncu wrote no report of the profiled call");
  }
  SUBCASE("a report: the kernels") {
    std::ofstream(report) << "stand-in";
    const CounterReading reading = read_ncu_report(ncu, report, "");
    INFO(reading.unavailable);
    CHECK(reading.unavailable.empty());
    CHECK(reading.kernels.size() == 2);
  }
  SUBCASE("a report ncu cannot import") {
    std::ofstream(report) << "stand-in";
    write_script(fake, "echo '==ERROR== Failed to open the report'; exit 1\n");
    CHECK(read_ncu_report(ncu, report, "").unavailable.find("ncu failed") == 0);
  }
  SUBCASE("a link where the report should be is not followed") {
    fs::create_symlink(csv, report);
    CHECK(read_ncu_report(ncu, report, "").unavailable == "ncu wrote no report of the profiled call");
  }
}

TEST_CASE("counters in the look: rows beside the code facts; lab 7's counter hint holds for strided loads, never "
          "for coalesced ones") {
  const Variables coalesced = counter_variables(parse_ncu_raw_csv(two_kernels_csv));
  const Variables strided = counter_variables(parse_ncu_raw_csv(uncoalesced_csv));
  CHECK(strided.at("sectors_per_load") == doctest::Approx(32));
  CHECK(strided.at("thread_efficiency") == doctest::Approx(32));

  const CodeLook look = make_look(std::nullopt, std::nullopt, "", strided, coalesced);
  bool found = false;
  for (const auto& row : look.facts)
    if (row.key == "sectors_per_load") {
      found = true;
      CHECK(row.yours == "32.00");
      CHECK(row.reference == "16.00");
    }
  CHECK(found);

  int counter_hints = 0;
  for (const char* lab : {"lab5-gemv-warps", "lab7-tiled-gemm"}) {
    const LabSpec spec = load_lab_spec(root / "labs" / lab);
    for (const auto& item : spec.performance)
      for (const Hint& hint : item.hints) {
        bool names_counter = false;
        for (const Condition& condition : hint.when)
          for (const auto& name : condition.names())
            if (const FactDefinition* fact = find_fact(name); fact && fact->source == FactSource::gpu_counter) names_counter = true;
        if (!names_counter) continue;
        ++counter_hints;
        CAPTURE(hint.text);
        const auto holds = [&](const Variables& facts) {
          try {
            for (const Condition& condition : hint.when)
              if (!condition.holds(facts)) return false;
          } catch (const ExprEvalError&) {
            return false;  // a fact that was not read: the hint does not hold (score/next_step.h)
          }
          return true;
        };
        CHECK(holds(strided));
        CHECK_FALSE(holds(coalesced));
        CHECK_FALSE(holds(Variables{}));  // no counters (no GPU, --no-counters): no counter hint
      }
  }
  // Lab 5 has none: on an H200 a thread per row read 16.5 sectors per load request, as coalesced 16-byte loads do.
  CHECK(counter_hints >= 1);
}
