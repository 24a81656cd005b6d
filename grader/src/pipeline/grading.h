// grading.h: the pipeline's own header, shared by its files and nobody else. One `Grading` carries a submission
// through the stages (docs/design.md, "The grading pipeline"):
//   grade.cpp          the run: calibration, work directory, stage, build, policy; the workers it keeps
//   correctness.cpp    stage 5-6 for correctness items: every case, every variant, against the judge
//   performance.cpp    stages 7-8 for performance items: measure/measure_item.h, then score/score_item.h
//   grading_helpers.cpp  parameters, seeds of items, tolerances, formatting
//   inspect_stage.cpp  what the code compiled to (inspect/code_facts.h), in the report and its hints
//   counters_stage.cpp one profiled call of each timed item on a GPU (inspect/ncu.h), its counters in the report
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "batch/gpu_inventory.h"
#include "build/build.h"
#include "calibrate/calibration.h"
#include "core/environment.h"
#include "data/manifest.h"
#include "inspect/code_facts.h"
#include "inspect/ncu.h"
#include "measure/foreign_load.h"
#include "pipeline/grade.h"
#include "pipeline/stage_clock.h"
#include "report/report.h"
#include "run/worker.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader::pipeline {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

// A correctness run may take this much longer than the judge's naive code before it counts as hung.
constexpr double hang_factor = 50;
constexpr double hang_slack_seconds = 5;
// compute-sanitizer slows a program down by one or two orders of magnitude.
constexpr double sanitizer_slowdown = 50;

// Helpers the pipeline's files share (grading_helpers.cpp).

// compute-sanitizer beside nvcc, or on PATH; throws when there is none.
std::string compute_sanitizer_path(const Environment& env);
double seconds_since(steady::time_point start);
std::string fixed(double value, int digits);
// The machine variables every expression may read. `cpu_scaling` and `memory_scaling` are what all threads
// reach against one thread by this machine's calibration (FP64 peak; read-only bandwidth), so a scaling
// tier can be derived from what the machine allows; until a calibration is loaded they are `threads`.
Variables machine_variables();
// A calibration whose all-thread figures were timed on a busy machine says nothing about scaling: the tiers
// then stay as they would be on real, quiet cores (and the report warns about the calibration).
void add_calibrated_scaling(Variables& machine, const Calibration& calibration);
// Whether grading this lab needs the machine calibrated: a roofline item, or a tier derived from the
// calibrated scaling.
bool needs_calibration(const LabSpec& spec);
// The parameters a case declares, evaluated on this machine: only those are sent to the workers (a
// harness must not see `threads` unless its lab.toml asks for it).
Variables case_params(const std::vector<Param>& params, const Variables& machine);
Variables with_overrides(Variables params, const std::vector<Param>& overrides, const Variables& machine);
// What determines a measurement: two items with the same key time exactly the same calls.
std::string measurement_key(const PerformanceItem& item);
const Tolerance& tolerance_for(const LabSpec& spec, const std::optional<Tolerance>& item,
                               const std::optional<Tolerance>& specific);

// Everything one grading needs at hand: the lab, its build, the candidate and the workers it starts.
class Grading {
 public:
  Grading(const Environment& env, const LabSpec& spec, const GradeOptions& options, Report& report)
      : env_(env), spec_(spec), options_(options), report_(report), machine_(machine_variables()) {}

  void run();

 private:
  // Enters `stage` of the grading (its clock: report.stage_seconds) and shows `line` to whoever watches.
  void progress(const char* stage, const std::string& line) const {
    std::lock_guard lock(shared_mutex_);  // correctness items of a GPU lab report from threads of their own
    stages_.enter(stage);
    if (options_.progress) options_.progress(line);
  }

  bool prepare_workdir();
  // Keeps `calibration` (none: the machine is not calibrated yet) and puts its figures in the report and the
  // machine variables (cpu_scaling, memory_scaling).
  void use_calibration(std::optional<Calibration> calibration);
  // Other programs running while an item is timed slow its two sides unevenly, and roofline fractions
  // are set against a calibration taken on a quiet machine: load that took an item's cores is measured around
  // (pipeline/performance.cpp), and load that remains is named in the report, once, with the items it touched.
  void warn_if_busy(const std::vector<std::string>& disturbed_items);
  bool build_everything();
  // The inspect stage (pipeline/inspect_stage.cpp): what the submission's and the reference's code compiled to,
  // read after the build on a thread of its own, beside the correctness items (it reads objects and runs no code of
  // the submission's); finish_inspect() waits for it, and is called before anything is timed (calibration,
  // begin_timing) and before the facts are read (check_steps, attach_facts). Then, after the items were graded,
  // each timed item's facts and the hint they choose.
  void inspect_code();
  void finish_inspect();
  void attach_facts();
  // The counters (pipeline/counters_stage.cpp): one extra call of a timed item's variant under Nsight Compute, in a
  // profiled worker of its own, kept per call (variant and inputs) for attach_facts(). An item's call is queued
  // after its timing, and every queued call is profiled once the last item is timed, still in the timing turn.
  void queue_counters(const PerformanceItem& item, const TestResult& test);
  void read_queued_counters();
  // What a profiled run left: ncu's report, read back by `ncu --import` (a process of its own, CPU only).
  struct ProfiledCall {
    fs::path report;
    std::string printed;  // the run's stdout and stderr: ncu's own lines
    std::string failed;   // how the run failed, empty when it did not
  };
  ProfiledCall profile_call(const PerformanceItem& item, const NcuTool& ncu, double median_seconds, bool boxed);
  static std::string counted_call_key(const PerformanceItem& item);  // one profiled run per call, not per item
  bool build_sanitized();
  // The submission compiled with item_flags and the --sanitize instrumentation, linked as workdir/<name>-sanitized.
  CandidateBuild sanitized_build(const std::vector<std::string>& item_flags, const std::string& name);
  // --only: whether this item is graded in this run (the named one, and the correctness items it needs).
  bool selected(const std::string& item) const;
  std::unique_ptr<Worker> start_worker(const fs::path& executable, const std::string& role);
  // --gpus: this grading's GPU, for every worker from now on, and its own calibration for the roofline.
  void claim_gpu();
  // A GPU lab graded alone (`grader lab5`, and on the node of `grader lab5 --slurm`): the GPU its workers use, as
  // nvidia-smi names it here, when one is found. Its calibration is that GPU's, kept by UUID as --gpus keeps it.
  std::optional<Gpu> own_gpu() const;
  void use_gpu_calibration(const Gpu& gpu);
  // Keeps what a candidate process that is about to go away printed (the start of it, for the student's
  // printf debugging) and, under --sanitize, compute-sanitizer's findings.
  void harvest_output(Worker& worker);
  Worker& candidate();
  Worker& judge();
  void retire_candidate_if_dead();
  // A correctness item with build_flags runs in its own build of the submission, compiled, policed and
  // linked like the main one when the first such item needs it.
  struct FlagBuild {
    CandidateBuild build;
    std::string details;  // why it failed, when build.verdict is not passed
  };
  FlagBuild& flag_build(const std::vector<std::string>& flags);
  // Correctness runs each variant (each student function) in its own candidate process, so a heap one
  // function corrupts, or a crash it causes later, never costs another function's item.
  Worker& candidate_for(const CorrectnessItem& item, const std::string& variant);
  void retire_if_dead(const CorrectnessItem& item, const std::string& variant);
  // Ends the variant's process (a fresh one serves its next item): after any failure its state is suspect.
  void retire_variant(const CorrectnessItem& item, const std::string& variant);
  void retire_all_variants();
  bool is_candidate_code(const fs::path& executable) const;

  // Every correctness item, into the report's first tests (pipeline/correctness.cpp): a GPU lab's graded on its own
  // at once, in groups (pipeline/correctness_groups.h), each group on a thread with its own judge.
  void grade_all_correctness();
  void grade_correctness(const CorrectnessItem& item, TestResult& test, std::unique_ptr<Worker>& judge);
  // lab.toml [steps] (pipeline/steps.cpp): the rules on what the submission compiled to, and each step timed against
  // the judge's own version of it; a step that breaks one loses every item that grades it (steps/step_verdicts.h).
  void check_steps();
  // Takes this grading's timing turn (a batch times one student at a time) and ends the correctness processes, once,
  // before the first thing timed.
  void begin_timing();
  void grade_performance(const PerformanceItem& item, TestResult& test);
  bool prerequisites_passed(const PerformanceItem& item, std::string& missing) const;
  // The first correctness item the candidate's `variant` failed, or empty.
  std::string failed_correctness(const std::string& variant) const {
    const auto found = variant_failures_.find(variant);
    return found == variant_failures_.end() ? std::string() : found->second;
  }
  // The correctness items a timed item needs passed: its `requires`, else every item that lists its variant.
  std::vector<std::string> required_correctness(const PerformanceItem& item) const;
  // An item --only leaves out: not run, and out of the total.
  void leave_out(TestResult& test) const;
  // Empty when this machine can measure the item (its `requires_machine` holds), else why not.
  std::string machine_shortfall(const PerformanceItem& item) const;
  // Stages 7 and 8 for one item (measure/measure_item.h, score/score_item.h), with the workers this grading keeps.
  void measure(const PerformanceItem& item, TestResult& test);
  // The items not measured yet that may be timed in `item`'s rounds (measure/partners.h), one per measurement key.
  std::vector<const PerformanceItem*> partners_of(const PerformanceItem& item);
  // Stores each partner's measurement (`measured`, in order; none where the measurement failed, whose verdict the
  // partners then take) under its key, for grade_performance() to score by the partner's own tiers.
  void share_with_partners(const std::vector<const PerformanceItem*>& partners, const TestResult& test,
                           const std::vector<Measurement>& measured);
  // What else happened on the machine while `item` was timed (since `load` began): other programs' CPU time, or,
  // for an item on several threads, a machine that gave them fewer cores than its calibration found
  // (probe_cpu_scaling). `what` is empty when nothing did; `measure_again` when the item's own threads were short
  // of cores, so the measurement is worth nothing and is taken again.
  struct Disturbance {
    std::string what;
    bool measure_again = false;
  };
  Disturbance disturbance(const PerformanceItem& item, const Variables& scope, const ForeignLoad& load);
  // This machine's variables and the item's parameters, as its expressions (bytes, tiers) read them.
  Variables scope_of(const PerformanceItem& item) const;
  // The seed of the inputs an item sets up, from its evaluated parameters, not its name: items on the same
  // parameters (lab 1's two items on one 10000 x 10000 A) time the same inputs, which the workers then set up once
  // (measure_item.cpp), and so does a measurement again; each item's fresh calls change them by seeds of its own.
  std::uint64_t inputs_seed(const Variables& params) const;
  double judge_timeout() const { return spec_.limits.wall_seconds; }

  mutable StageClock stages_;  // progress() is called from const helpers; the clock is bookkeeping
  const Environment& env_;
  const LabSpec& spec_;
  const GradeOptions& options_;
  Report& report_;
  Variables machine_;
  std::vector<std::string> disturbed_items_;  // timed while other programs ran (after any measuring again), with what ran
  bool probe_unavailable_ = false;            // probe_cpu_scaling found no program here: not asked again
  std::optional<Calibration> calibration_;
  std::string visible_devices_;  // CUDA_VISIBLE_DEVICES of the workers, from claim_gpu(); empty: the grader's own

  fs::path workdir_;
  LabBuild lab_;
  std::vector<fs::path> staged_sources_;
  CandidateBuild candidate_build_;
  CodeFacts facts_, reference_facts_;  // read once finish_inspect() has returned
  // The inspect stage's thread (inspect_code()): the submission's facts and the reference's. It works on copies of
  // the lab's build and the objects' paths; a grading that ends early (an exception) waits for it in the future's
  // destructor, so no tool of it outlives the grading.
  std::future<std::pair<CodeFacts, CodeFacts>> inspecting_;
  // Per measurement key: the profiled call's facts (inspect/counters.h) and the words the report shows with them.
  struct ItemCounters {
    Variables facts;
    std::string words;  // "counters: Nsight Compute 2025.3.1.0, ...", or "counters not read: ..."
  };
  std::map<std::string, ItemCounters> counters_;
  struct CountedCall {
    const PerformanceItem* item;
    double median_seconds;  // the timed call's, for the profiled run's wall limit
  };
  std::vector<CountedCall> counters_queue_;  // one per counted_call_key, in the order the items were timed
  std::map<std::vector<std::string>, FlagBuild> flag_builds_;
  std::unique_ptr<Worker> candidate_;  // the timed items' candidate: a fresh one for every measurement but one on its inputs
  bool candidate_passed_last_measurement_ = false;  // candidate_'s last measurement ended passed or below_threshold
  using VariantKey = std::pair<std::vector<std::string>, std::string>;  // build flags, variant
  std::map<VariantKey, std::unique_ptr<Worker>> variant_workers_;
  std::unique_ptr<Worker> judge_;
  std::atomic<int> workers_started_{0};
  // What correctness items graded at once share: the report's counts and text, the variant processes' map, the
  // verdicts, the manifest, the stage clock. Each item's own TestResult and processes are its thread's alone.
  mutable std::mutex shared_mutex_;
  std::optional<Manifest> manifest_;
  std::map<std::string, Verdict> item_verdicts_;  // correctness item name -> how it ended
  // Items that time the same thing (same variant, parameters, baseline) share one measurement and
  // differ only in how they score it: lab1 grades one timing by speedup and by roofline fraction.
  std::map<std::string, TestResult> measurements_;
  // The judge's bounds timed so far (measure_item.h, bounds_timed): items on the same inputs' shapes share one.
  std::map<std::string, Timing> bounds_timed_;
  // With a batch's timing gate: this grading's work (builds, correctness) from the start, then its timing from the
  // first timed item to the end of the performance items.
  std::optional<TimingGate::Work> work_turn_;
  std::optional<TimingGate::Timing> timing_turn_;
  bool timing_started_ = false;
  std::map<std::string, std::string> variant_failures_;  // variant -> the first item it failed, for messages
};


}  // namespace grader::pipeline
