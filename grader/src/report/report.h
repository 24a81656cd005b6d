// report.h: what grading one submission produced (pipeline stage 9's input). The text, JSON and
// Gradescope writers, the batch gradebook and selftest all read this one structure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/verdict.h"
#include "spec/lab_spec.h"

namespace grader {

enum class TestKind { correctness, performance };
std::string_view to_string(TestKind kind);

struct CaseResult {
  std::string name;
  std::string variant;
  Verdict verdict = Verdict::not_run;
  std::string details;  // the worst element and where, or how the run ended
  Visibility visibility = Visibility::visible;
};

// One timed implementation: its per-call times (seconds) and the rates derived from them.
struct Timing {
  std::string label;        // "candidate unrolled", "judge rowptr", "judge openblas"
  std::vector<double> seconds;
  double median = 0;
  double q1 = 0, q3 = 0;    // quartiles: the spread a student sees
  double gflops = 0;        // 0 when the item declares no flops
  double gbps = 0;          // 0 when the item declares no bytes
};

// What the grader counted over one extra call of a timed side, outside the timed rounds (measure/cpu_counters.h).
// The hardware counts are absent where the machine has no performance counters for the grader (a VM without a
// virtual PMU); the software ones are the kernel's and are there wherever counting is allowed at all.
struct CounterSet {
  std::string label;          // "candidate unrolled", "judge rowptr": the Timing it belongs to
  double cpu_seconds = 0;     // task-clock: CPU time of every thread over the call
  double page_faults = 0;
  int threads = 0;            // threads that ran in the call (one it started counts with its starter); 0: none counted
  std::optional<double> cycles, instructions, cache_misses, l1d_misses, branch_misses;  // cache: last-level loads
  double flops = 0;           // the item's floating-point operations in the call (0: it declares none)

  std::optional<double> ipc() const;                           // instructions per cycle
  std::optional<double> per_kilo_instruction(std::optional<double> count) const;
  std::optional<double> per_flop(std::optional<double> count) const;
  std::optional<double> flops_per_cycle() const;
  // The item's flops over the CPU time every thread spent: GFLOP/s at the cycles the call used (cycles / task-clock
  // is the clock they ran at), so a figure even where the machine counts no cycles.
  std::optional<double> gflops_per_cpu_second() const;
};

// The counters of one timed item: the candidate's call and the yardstick's. `unavailable` says why the hardware
// counts (or all counts, with `sides` empty) are missing: "perf_event_paranoid is 3", "no hardware counters here
// (cycles: ENOENT, ...)". Counters never change points.
struct CpuCounters {
  std::vector<CounterSet> sides;
  std::string unavailable;
  std::string skipped;  // sides left out for the time a call takes: "judge naive takes 4.2 s a call: not counted"
};

// The counters as every report format shows them, one row per figure, a value per side ("-" where absent). Rows
// no side has are left out: on a machine without hardware counters, only CPU time and page faults.
struct CounterRow {
  std::string key;    // "ipc"
  std::string label;  // "instructions per cycle"
  std::vector<std::string> values;
};
std::vector<CounterRow> counter_rows(const CpuCounters& counters);

struct Measurement {
  Timing candidate;
  Timing baseline;
  std::vector<Timing> compare;  // professional figures (cuBLAS, CUB, OpenBLAS), report only
  double speedup = 0;           // baseline median / candidate median
  double speedup_low = 0, speedup_high = 0;  // from the quartiles: baseline q1 / candidate q3 .. q3 / q1
  // achieved / peak of the binding resource: the calibrated peak, or what judge code reached in this grading where
  // that is higher (measure/ceilings.h); 0 if uncalibrated
  double roofline_fraction = 0;
  std::string roofline_bound;    // "memory bandwidth (1 thread, 14.2 GB/s)", "FP64 peak (1 thread, 105.7 GFLOP/s)"
  double possible_fraction = 0;  // achieved / what the threads used could physically reach; > 1.5 is SUSPECT
  double metric_value = 0;       // the number the tiers read (speedup or roofline fraction)
  double threshold_full = 0;     // the last tier's `at`, evaluated on this machine
  std::string metric;            // "speedup" or "roofline": what metric_value and the tiers measure
  struct TierMark {
    double at = 0, points = 0;
  };
  std::vector<TierMark> tiers;   // the item's ladder, evaluated on this machine (the HTML report draws it)
  // The ceilings this item is held to, for the roofline plot: 0 where the machine has no calibration for them.
  double ceiling_gbps = 0, ceiling_gflops = 0;
  std::string memory_ceiling, compute_ceiling;  // their labels, as calibrated
  // Where judge code beat the calibrated ceiling in this grading and the ceiling above is its rate: "judge read_a
  // reached 23.1 GB/s in this grading"; empty where the calibration stands.
  std::string memory_reached, compute_reached;
  // The metric's 95% confidence interval from the raw samples (score/noise.h). `within_noise`: it still held a
  // tier threshold after `noise_retries` more measurements, and the item was scored by noise_rule().
  double metric_low = 0, metric_high = 0;
  bool within_noise = false;
  int noise_retries = 0;
  // Whether the grader's own clock checked the reported times (measure/cross_check.h): left out where they
  // earned no point even taken at their word.
  bool outside_checked = false;
  // Where the item's wall time went, in seconds (bench/grading_seconds.py reads it): what its confidence cost.
  // `rounds` is the interleaved timing itself, without `checks` (the judge's outputs for the checked calls);
  // `retries` is every measurement again (performance.cpp), whole.
  struct Spent {
    double setup = 0, rounds = 0, checks = 0, compare = 0, bound = 0, cross_check = 0, retries = 0;
    double counters = 0;  // the counted calls (measure/cpu_counters.h), outside the rounds
    int round_count = 0, checked_rounds = 0;
    bool stopped_early = false;  // the rounds stopped once the interval decided the points (measure/rounds.cpp)
  } spent;
  std::optional<CpuCounters> cpu_counters;  // CPU labs, where the grading counts (GradeOptions::counters)
};

// One fact of "what your code does" (inspect/fact_list.h): the submission's value beside the reference's.
struct FactRow {
  std::string key;     // "vector_bits"
  std::string label;   // "vector width of the hot loop"
  std::string yours;   // "ymm (256-bit)"; empty where it could not be read
  std::string reference;  // empty where the reference's facts are not at hand
  std::optional<double> yours_value, reference_value;
};

// One source line of the hot loop and the instructions compiled from it (objdump -l; inspect/look.h).
struct SourceLine {
  std::string location;  // "matvec.cpp:42"; empty for instructions no line table names
  std::string text;      // the line as the student wrote it; empty where the file is not the student's (a header)
  struct Instruction {
    std::string text;    // as `listing` has it, annotated
    bool fp = false;     // floating-point arithmetic: what the listing highlights
  };
  std::vector<Instruction> instructions;
};

// What the timed variant's code compiled to (inspect/code_facts.h), beside the reference's.
struct CodeLook {
  std::string function;            // the interface function read: "matvec_unrolled"
  std::vector<std::string> kernels;  // CUDA: the kernels it can launch, demangled
  std::vector<FactRow> facts;
  std::string listing_title;       // "hot loop of matvec_unrolled (x86-64)", "PTX of gemv_warp_kernel"
  std::vector<std::string> listing;  // its instructions, one a line
  // CPU: the same instructions under the source lines they came from, in source order; empty where the objects
  // carry no line tables.
  std::vector<SourceLine> source_listing;
  std::string note;                // why a part is missing ("the reference's facts: ...")
  // The counters of one extra, profiled call on a GPU (inspect/counters.h): which ncu read them and the launch it
  // saw ("Nsight Compute 2025.3.1.0, ...; gemv_warp_rows: 4000 blocks of 256 threads, ..."), or why none were read
  // ("counters not read: ..."). Empty where no profiling was tried (a CPU lab, no GPU, --no-counters).
  std::string counters;
};

// Whether a report lists the row: not where the submission and the reference both read 0 (no tensor cores in
// either), which says nothing a student needs.
bool worth_showing(const FactRow& row);

struct TestResult {
  std::string name;
  TestKind kind = TestKind::correctness;
  Verdict verdict = Verdict::not_run;
  double score = 0;
  double max_score = 0;
  std::string details;
  Visibility visibility = Visibility::visible;
  std::vector<CaseResult> cases;           // correctness items
  std::optional<Measurement> measurement;  // performance items that were timed
  std::string next_step;  // the lab's hint for where this timed result sits; empty when none applies
  std::optional<CodeLook> look = std::nullopt;  // performance items whose variant's code was read
};

struct MachineInfo {
  std::string hostname;
  std::string cpu;
  int threads = 0;
  bool calibrated = false;
  double bandwidth_1t_gbps = 0, bandwidth_all_gbps = 0, peak_fp64_gflops_1t = 0, peak_fp64_gflops_all = 0;
  double read_bandwidth_1t_gbps = 0, read_bandwidth_all_gbps = 0;  // read-only kernels' memory ceilings
  bool calibration_stable = true;  // false: the calibration's figures never settled (a busy machine)
  std::string gpu;  // empty without one (or without a GPU calibration)
  int gpu_index = -1;     // the GPU this grading ran on (`grader batch --gpus`): nvidia-smi's index and UUID
  std::string gpu_uuid;   // empty when the grading was not given one GPU of several
  double gpu_bandwidth_gbps = 0, gpu_read_bandwidth_gbps = 0, gpu_sgemm_tflops = 0, gpu_dgemm_tflops = 0;
};

struct Report {
  std::string lab;        // "lab1"
  std::string lab_name;   // "lab1-matvec"
  std::string title;
  std::string submission;
  std::uint64_t seed = 0;
  Verdict verdict = Verdict::passed;  // the submission as a whole: build_error, missing_file, ... or passed
  std::string verdict_details;
  double score = 0;
  double max_score = 0;
  std::string build_log;  // compiler output, as the compiler wrote it
  std::string isolation;  // which isolation was in force for the candidate
  std::vector<TestResult> tests;
  int hidden_tests_skipped = 0;
  std::vector<std::string> warnings;  // about the run, not the submission (a busy machine)  // hidden items/cases a student's local run did not grade
  MachineInfo machine;
  double wall_seconds = 0;
  // Where that time went: seconds per stage of the grading (staging, build (lab), build (submission), calibration,
  // correctness, setup, timing, expected outputs, ...), in the order the stages first ran (pipeline/stage_clock.h).
  std::vector<std::pair<std::string, double>> stage_seconds;
  std::string sanitizer_tool;    // "memcheck", "racecheck"; empty when not asked for
  std::string sanitizer_program;  // "compute-sanitizer" (CUDA labs) or "GCC sanitizers" (CPU labs)
  int sanitizer_errors = -1;     // from its ERROR SUMMARY; -1 when it printed none
  std::string sanitizer_output;  // what it printed, capped
  std::string candidate_output;  // the start of what the submission printed to stdout and stderr
  // Why the submission's compiled code could not be read (inspect/code_facts.h); empty when it was or was not tried.
  std::string facts_unavailable;

  bool all_passed() const;  // every test passed or was below_threshold, and nothing else went wrong
};

// The report's score and maximum, summed again from its tests (a grading's end; a selftest's item graded again).
void sum_scores(Report& report);

}  // namespace grader
