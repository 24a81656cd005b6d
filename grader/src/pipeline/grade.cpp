#include "pipeline/grade.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "build/build.h"
#include "build/stage.h"
#include "calibrate/calibration.h"
#include "check/compare.h"
#include "data/manifest.h"
#include "measure/fresh.h"
#include "measure/quiet.h"
#include "measure/statistics.h"
#include "measure/foreign_load.h"
#include "pipeline/launch.h"
#include "policy/policy.h"
#include "run/sandbox.h"
#include "run/worker.h"
#include "score/score.h"

namespace grader {

namespace {

namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

// A correctness run may take this much longer than the judge's naive code before it counts as hung.
constexpr double hang_factor = 50;
constexpr double hang_slack_seconds = 5;
// compute-sanitizer slows a program down by one or two orders of magnitude.
constexpr double sanitizer_slowdown = 50;
// Faster than this multiple of the machine's roofline is not believed: the timing was fooled. Above 1
// because a read-only kernel can outrun the STREAM-style calibration; results that were cached or computed
// outside the timed call are off by far more.
constexpr double believable_roofline = 1.5;

// The verdict on a whole set of outputs, in one line a student can act on.
struct OutputsCheck {
  bool passed = true;
  bool oracle_invalid = false;  // the expected outputs hold NaN or Inf: the lab is broken, not the student
  std::string summary;
};

OutputsCheck check_outputs(const std::vector<Array>& got, const std::vector<Array>& expected, const Tolerance& tolerance) {
  const std::vector<CheckResult> results = compare_outputs(got, expected, tolerance);
  OutputsCheck check;
  check.passed = all_passed(results);
  check.oracle_invalid = any_internal_error(results);
  for (const auto& result : results) {
    if (result.passed) continue;
    if (!check.summary.empty()) check.summary += "; ";
    check.summary += (results.size() > 1 || expected.size() > 1 ? result.name + ": " : "") + result.summary;
  }
  return check;
}

std::string compute_sanitizer_path(const Environment& env) {
  if (env.nvcc) {
    const fs::path beside = fs::path(*env.nvcc).parent_path() / "compute-sanitizer";
    if (fs::exists(beside)) return beside.string();
  }
  if (auto on_path = find_on_path("compute-sanitizer")) return *on_path;
  throw std::runtime_error("--sanitize needs compute-sanitizer (part of the CUDA toolkit) and none was found");
}

double seconds_since(steady::time_point start) { return std::chrono::duration<double>(steady::now() - start).count(); }

std::string fixed(double value, int digits) {
  std::ostringstream text;
  text.precision(digits);
  text << std::fixed << value;
  return text.str();
}

// The machine variables every expression may read. `cpu_scaling` and `memory_scaling` are what all threads
// reach against one thread by this machine's calibration (FP64 peak; read-only bandwidth), so a scaling
// tier can be derived from what the machine allows; until a calibration is loaded they are `threads`.
Variables machine_variables() {
  const double threads = static_cast<double>(std::max(1u, std::thread::hardware_concurrency()));
  return {{"threads", threads}, {"cpu_scaling", threads}, {"memory_scaling", threads}};
}

// A calibration whose all-thread figures were timed on a busy machine says nothing about scaling: the tiers
// then stay as they would be on real, quiet cores (and the report warns about the calibration).
void add_calibrated_scaling(Variables& machine, const Calibration& calibration) {
  const CpuCalibration& cpu = calibration.cpu;
  if (cpu.busy) return;
  if (cpu.peak_fp64_gflops_1t > 0) machine["cpu_scaling"] = cpu.peak_fp64_gflops_all / cpu.peak_fp64_gflops_1t;
  if (cpu.read_bandwidth_1t_gbps > 0) machine["memory_scaling"] = cpu.read_bandwidth_all_gbps / cpu.read_bandwidth_1t_gbps;
}

// Whether grading this lab needs the machine calibrated: a roofline item, or a tier derived from the
// calibrated scaling.
bool needs_calibration(const LabSpec& spec) {
  for (const auto& item : spec.performance) {
    if (item.metric == Metric::roofline) return true;
    for (const auto& tier : item.tiers)
      for (const auto& name : tier.at.names())
        if (name == "cpu_scaling" || name == "memory_scaling") return true;
  }
  return false;
}

// The parameters a case declares, evaluated on this machine: only those are sent to the workers (a
// harness must not see `threads` unless its lab.toml asks for it).
Variables case_params(const std::vector<Param>& params, const Variables& machine) {
  const Variables all = evaluate_params(params, machine);
  Variables declared;
  for (const auto& param : params) declared[param.name] = all.at(param.name);
  return declared;
}

Variables with_overrides(Variables params, const std::vector<Param>& overrides, const Variables& machine) {
  Variables scope = machine;
  for (const auto& [name, value] : params) scope[name] = value;
  for (const auto& param : overrides) params[param.name] = param.value.evaluate(scope);
  return params;
}

// What determines a measurement: two items with the same key time exactly the same calls.
std::string measurement_key(const PerformanceItem& item) {
  std::string key = item.variant + "|" + item.baseline.variant + "|" +
                    (item.baseline.process == BaselineSpec::Process::judge ? "judge" : "candidate");
  auto add_params = [&](const std::vector<Param>& params) {
    for (const auto& p : params) key += "|" + p.name + "=" + p.value.text();
  };
  add_params(item.params);
  key += "|baseline";
  add_params(item.baseline.params);
  for (const auto& c : item.compare) key += "|compare=" + c;
  if (item.tolerance) key += "|tolerance=" + std::to_string(item.tolerance->rtol) + "," + std::to_string(item.tolerance->atol);
  return key;
}

const Tolerance& tolerance_for(const LabSpec& spec, const std::optional<Tolerance>& item,
                               const std::optional<Tolerance>& specific) {
  if (specific) return *specific;
  if (item) return *item;
  return spec.tolerance;
}

// Everything one grading needs at hand: the lab, its build, the candidate and the workers it starts.
class Grading {
 public:
  Grading(const Environment& env, const LabSpec& spec, const GradeOptions& options, Report& report)
      : env_(env), spec_(spec), options_(options), report_(report), machine_(machine_variables()) {}

  void run();

 private:
  void progress(const std::string& line) const {
    if (options_.progress) options_.progress(line);
  }

  bool prepare_workdir();
  // Other programs running while an item is timed slow its two sides unevenly, and roofline fractions
  // are set against a calibration taken on a quiet machine: any load that could move a score is named in
  // the report, once, with the items it touched.
  void warn_if_busy(const std::vector<std::string>& disturbed_items, double worst_cores);
  bool build_everything();
  std::unique_ptr<Worker> start_worker(const fs::path& executable, const std::string& role);
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
    std::unique_ptr<Worker> worker;
  };
  FlagBuild& flag_build(const std::vector<std::string>& flags);
  Worker& candidate_for(const CorrectnessItem& item);
  void retire_if_dead(const CorrectnessItem& item);
  bool is_candidate_code(const fs::path& executable) const;

  void grade_correctness(const CorrectnessItem& item, TestResult& test);
  void grade_performance(const PerformanceItem& item, TestResult& test);
  bool prerequisites_passed(const PerformanceItem& item, std::string& missing) const;
  // Empty when this machine can measure the item (its `requires_machine` holds), else why not.
  std::string machine_shortfall(const PerformanceItem& item) const;
  void measure(const PerformanceItem& item, TestResult& test);
  void score_measurement(const PerformanceItem& item, const Variables& params, TestResult& test);
  // Empty when the times the candidate reported agree with what the grader measured from outside; else
  // why they cannot be reconciled.
  std::string cross_check_times(Worker& cand, const std::string& variant, double cand_reported, Worker& base,
                                const std::string& base_variant, double base_reported, bool base_is_judge, int reps,
                                FreshCalls& fresh);
  void fill_rates(const PerformanceItem& item, const Variables& params, Timing& timing) const;
  struct Ceilings {
    double bytes_per_second = 0, flops_per_second = 0;
    std::string memory_label, compute_label;
    // What is physically possible, for the SUSPECT check: the calibrated ceilings, except that several CPU
    // threads may reach as many times one thread's. The all-thread calibration is taken by wall time, so a
    // machine busy while it ran records all-thread ceilings too low, and honest code would look impossible.
    double possible_bytes_per_second = 0, possible_flops_per_second = 0;
  };
  // This machine's roofline for an item: the GPU's for GPU labs, else the CPU's for as many threads as the
  // item uses. Nothing when the machine has no calibration for it.
  std::optional<Ceilings> roofline_ceilings(const PerformanceItem& item, const Variables& params) const;

  double judge_timeout() const { return spec_.limits.wall_seconds; }

  const Environment& env_;
  const LabSpec& spec_;
  const GradeOptions& options_;
  Report& report_;
  Variables machine_;
  std::vector<std::string> disturbed_items_;  // timed while other programs used the CPU
  double worst_foreign_cores_ = 0;
  std::optional<Calibration> calibration_;

  fs::path workdir_;
  LabBuild lab_;
  std::vector<fs::path> staged_sources_;
  CandidateBuild candidate_build_;
  std::map<std::vector<std::string>, FlagBuild> flag_builds_;
  std::unique_ptr<Worker> candidate_;
  std::unique_ptr<Worker> judge_;
  int workers_started_ = 0;
  std::optional<Manifest> manifest_;
  std::map<std::string, Verdict> item_verdicts_;  // correctness item name -> how it ended
  // Items that time the same thing (same variant, parameters, baseline) share one measurement and
  // differ only in how they score it: lab1 grades one timing by speedup and by roofline fraction.
  std::map<std::string, TestResult> measurements_;
  std::unique_lock<std::mutex> timing_lock_;  // held from the first timed item to the end of the performance items
  std::map<std::string, std::string> variant_failures_;  // variant -> first failing case, for messages
};

bool Grading::prepare_workdir() {
  std::string pattern = (fs::temp_directory_path() / ("grader-" + spec_.name() + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a work directory in /tmp");
  workdir_ = pattern;
  // Workers run as an unprivileged user when the grader is root: they must reach their executable.
  ::chmod(workdir_.c_str(), 0755);
  fs::create_directories(workdir_ / "src");
  return true;
}

void Grading::warn_if_busy(const std::vector<std::string>& disturbed_items, double worst_cores) {
  if (disturbed_items.empty()) return;
  std::string items;
  for (const auto& name : disturbed_items) items += (items.empty() ? "" : "; ") + name;
  report_.warnings.push_back("other programs used the CPU while this grading timed (up to " + fixed(worst_cores, 2) +
                             " of a core on average, during: " + items + "): the figures and points of those "
                             "items may be lower than on a quiet machine; grade again when it is quiet");
}

bool Grading::build_everything() {
  progress("staging " + options_.submission.string());
  StageResult staged = stage_submission(spec_, options_.submission, workdir_ / "src");
  if (staged.verdict != Verdict::passed) {
    report_.verdict = staged.verdict;
    report_.verdict_details = staged.details;
    return false;
  }

  progress("building the lab's harness and judge");
  try {
    lab_ = build_lab(env_, spec_);
  } catch (const LabBuildError& error) {
    report_.verdict = Verdict::internal_error;
    report_.verdict_details = error.what();
    report_.build_log = error.log();
    return false;
  }

  // Workers may run as an unprivileged user who cannot reach the build tree (a clone under /root): the
  // judge runs from the work directory, like the candidate.
  fs::copy_file(lab_.judge, workdir_ / "judge", fs::copy_options::overwrite_existing);
  lab_.judge = workdir_ / "judge";

  progress("compiling the submission");
  staged_sources_ = staged.sources;
  candidate_build_ = compile_candidate(env_, spec_, lab_, staged.sources, workdir_);
  report_.build_log = candidate_build_.log;
  if (candidate_build_.verdict != Verdict::passed) {
    report_.verdict = candidate_build_.verdict;
    report_.verdict_details = "the submission does not compile; the compiler's words are in the build log";
    return false;
  }

  // Before anything links or runs: what the student's objects define and call.
  PolicyResult policy = apply_link_policy(spec_, lab_.baseline_objects, candidate_build_.student_objects);
  if (policy.verdict != Verdict::passed) {
    report_.verdict = policy.verdict;
    report_.verdict_details = policy.details;
    return false;
  }

  link_candidate(env_, spec_, lab_, candidate_build_, workdir_);
  report_.build_log = candidate_build_.log;
  if (candidate_build_.verdict != Verdict::passed) {
    report_.verdict = candidate_build_.verdict;
    report_.verdict_details = "the submission does not link with the lab's harness; the linker's words are in the build log";
    return false;
  }
  return true;
}

std::unique_ptr<Worker> Grading::start_worker(const fs::path& executable, const std::string& role) {
  const fs::path dir = workdir_ / ("run-" + role + "-" + std::to_string(++workers_started_));
  fs::create_directories(dir);
  LaunchOptions launch = worker_launch_options(spec_, executable, dir);
  if (!options_.sanitize.empty() && is_candidate_code(executable)) {
    // Inside the sandbox, around the worker.
    for (const auto& word : {compute_sanitizer_path(env_), std::string("--tool"), options_.sanitize,
                             std::string("--print-limit"), std::string("20")})
      launch.wrapper.push_back(word);
    launch.limits.output_bytes = std::max<std::size_t>(launch.limits.output_bytes, 4u << 20);  // its findings
    launch.limits.wall_seconds *= sanitizer_slowdown;
    launch.limits.cpu_seconds *= sanitizer_slowdown;
  }
  auto worker = std::make_unique<Worker>(launch, role);
  std::vector<std::string> variants;
  worker->hello(variants, 60);  // a worker that cannot even greet is left dead; callers read failure()
  return worker;
}

Worker& Grading::candidate() {
  if (!candidate_ || !candidate_->alive()) {
    if (candidate_) harvest_output(*candidate_);
    candidate_ = start_worker(candidate_build_.executable, "candidate");
  }
  return *candidate_;
}

bool Grading::is_candidate_code(const fs::path& executable) const {
  if (executable == candidate_build_.executable) return true;
  for (const auto& [flags, built] : flag_builds_)
    if (executable == built.build.executable) return true;
  return false;
}

Grading::FlagBuild& Grading::flag_build(const std::vector<std::string>& flags) {
  auto found = flag_builds_.find(flags);
  if (found != flag_builds_.end()) return found->second;
  FlagBuild& made = flag_builds_[flags];
  std::string shown;
  for (const auto& flag : flags) shown += (shown.empty() ? "" : " ") + flag;
  progress("compiling the submission again, with " + shown);
  const std::string name = "candidate-" + std::to_string(flag_builds_.size());
  made.build = compile_candidate(env_, spec_, lab_, staged_sources_, workdir_, flags, name);
  if (made.build.verdict != Verdict::passed) {
    made.details = "the submission does not compile with this item's extra flags (" + shown + "); see the build log";
  } else if (PolicyResult policy = apply_link_policy(spec_, lab_.baseline_objects, made.build.student_objects);
             policy.verdict != Verdict::passed) {
    // The optimiser changes what an object calls: at -O0 nothing is inlined, so the policy reads this build too.
    made.build.verdict = policy.verdict;
    made.details = "built with " + shown + ": " + policy.details;
  } else {
    link_candidate(env_, spec_, lab_, made.build, workdir_, name);
    if (made.build.verdict != Verdict::passed)
      made.details = "built with " + shown + ", the submission does not link with the lab's harness; see the build log";
  }
  report_.build_log += "\n# the build with " + shown + "\n" + made.build.log;
  return made;
}

Worker& Grading::candidate_for(const CorrectnessItem& item) {
  if (item.build_flags.empty()) return candidate();
  FlagBuild& built = flag_build(item.build_flags);
  if (!built.worker || !built.worker->alive()) {
    if (built.worker) harvest_output(*built.worker);
    built.worker = start_worker(built.build.executable, "candidate-flags");
  }
  return *built.worker;
}

void Grading::retire_if_dead(const CorrectnessItem& item) {
  if (item.build_flags.empty()) return retire_candidate_if_dead();
  FlagBuild& built = flag_build(item.build_flags);
  if (built.worker && !built.worker->alive()) {
    harvest_output(*built.worker);
    built.worker.reset();
  }
}

void Grading::harvest_output(Worker& worker) {
  worker.process().finish();
  const std::string text = worker.process().stdout_text() + worker.process().stderr_text();
  constexpr std::size_t shown = 4096;
  if (report_.candidate_output.size() < shown) report_.candidate_output += text.substr(0, shown - report_.candidate_output.size());
  if (options_.sanitize.empty()) return;
  // "========= ERROR SUMMARY: 3 errors"
  const std::string marker = "ERROR SUMMARY: ";
  for (auto at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) {
    const int errors = std::atoi(text.c_str() + at + marker.size());
    report_.sanitizer_errors = std::max(report_.sanitizer_errors, 0) + errors;
  }
  if (report_.sanitizer_output.size() < 64 * 1024) report_.sanitizer_output += text.substr(0, 64 * 1024);
}

Worker& Grading::judge() {
  if (!judge_ || !judge_->alive()) judge_ = start_worker(lab_.judge, "judge");
  return *judge_;
}

void Grading::retire_candidate_if_dead() {
  if (candidate_ && !candidate_->alive()) {
    harvest_output(*candidate_);
    candidate_.reset();
  }
}

void Grading::grade_correctness(const CorrectnessItem& item, TestResult& test) {
  test.kind = TestKind::correctness;
  test.max_score = item.points;
  Verdict first_failure = Verdict::passed;
  std::string first_details;
  int graded = 0;
  std::set<std::string> hung_variants;

  if (!item.build_flags.empty()) {
    const FlagBuild& built = flag_build(item.build_flags);
    if (built.build.verdict != Verdict::passed) {
      for (const auto& c : item.cases)
        if (c.visibility != Visibility::visible && !options_.include_hidden) ++report_.hidden_tests_skipped;
      test.verdict = built.build.verdict;
      test.details = built.details;
      test.score = 0;
      item_verdicts_[item.name] = test.verdict;
      return;
    }
  }

  for (const auto& c : item.cases) {
    if (c.visibility != Visibility::visible && !options_.include_hidden) {
      ++report_.hidden_tests_skipped;
      continue;
    }
    progress("correctness: " + item.name + ": " + c.name);
    Variables params;
    std::vector<Array> supplied, expected_from_dataset;
    if (!c.dataset.empty()) {
      try {
        if (!manifest_) manifest_ = load_manifest(env_.root / "datasets" / spec_.name());
        const DatasetEntry* entry = manifest_->find(c.dataset);
        if (entry == nullptr) throw std::runtime_error("no dataset '" + c.dataset + "' in the lab's manifest");
        for (const auto& p : entry->params) params[p.name] = p.value;
        DatasetArrays arrays = load_dataset_arrays(*manifest_, *entry);
        supplied = std::move(arrays.inputs);
        expected_from_dataset = std::move(arrays.expected);
      } catch (const std::exception& error) {
        for (const auto& variant : item.variants)
          test.cases.push_back({c.name, variant, Verdict::internal_error, error.what(), c.visibility});
        if (first_failure == Verdict::passed) {
          first_failure = Verdict::internal_error;
          first_details = error.what();
        }
        continue;
      }
    } else {
      params = case_params(c.params, machine_);
    }
    const std::uint64_t seed = derive_seed(options_.seed, item.name + "/" + c.name);
    const Tolerance& tolerance = tolerance_for(spec_, item.tolerance, c.tolerance);

    bool judge_ready = false;
    bool candidate_ready = false;
    for (const auto& variant : item.variants) {
      CaseResult result{c.name, variant, Verdict::passed, "", c.visibility};
      // One hang costs the whole item already; waiting out every later case would only slow the report.
      if (hung_variants.count(variant)) {
        result.verdict = Verdict::not_run;
        result.details = "skipped: an earlier case of this version ran into the time limit";
        test.cases.push_back(std::move(result));
        continue;
      }
      ++graded;
      // The expected outputs: the dataset's, or the judge's naive code on the same inputs.
      std::vector<Array> expected = expected_from_dataset;
      double judge_seconds = 0;
      if (expected.empty()) {
        Worker& j = judge();
        if (!judge_ready) judge_ready = j.alive() && j.setup(params, seed, supplied, judge_timeout());
        if (!judge_ready || !j.run(variant, judge_timeout(), expected, judge_seconds)) {
          result.verdict = Verdict::internal_error;
          result.details = "the judge failed: " + j.failure().details;
          judge_.reset();
          judge_ready = false;
        }
      }
      if (result.verdict == Verdict::passed) {
        Worker& cand = candidate_for(item);
        if (!candidate_ready) {
          candidate_ready = cand.alive() && cand.setup(params, seed, supplied, judge_timeout());
          if (!candidate_ready && cand.failure().verdict == Verdict::passed) candidate_ready = false;
        }
        std::vector<Array> got;
        double seconds = 0;
        const double timeout = (hang_slack_seconds + hang_factor * judge_seconds) *
                               (options_.sanitize.empty() ? 1 : sanitizer_slowdown);
        if (!candidate_ready) {
          result.verdict = cand.failure().verdict == Verdict::passed ? Verdict::internal_error : cand.failure().verdict;
          result.details = cand.failure().details;
        } else if (!cand.run(variant, timeout, got, seconds)) {
          result.verdict = cand.failure().verdict;
          result.details = cand.failure().details;
          if (!cand.alive()) candidate_ready = false;
        } else {
          OutputsCheck check = check_outputs(got, expected, tolerance);
          if (check.oracle_invalid) {
            result.verdict = Verdict::internal_error;
            result.details = "the expected outputs contain NaN or Inf: the lab's judge or dataset is broken";
          } else if (!check.passed) {
            result.verdict = Verdict::wrong_answer;
            result.details = check.summary;
          }
        }
        retire_if_dead(item);
      }
      if (result.verdict != Verdict::passed && first_failure == Verdict::passed) {
        first_failure = result.verdict;
        first_details = c.name + " [" + variant + "]: " + result.details;
      }
      if (result.verdict == Verdict::time_limit) hung_variants.insert(variant);
      if (result.verdict != Verdict::passed && !variant_failures_.count(variant))
        variant_failures_[variant] = item.name + ": " + c.name;
      test.cases.push_back(std::move(result));
    }
  }

  test.verdict = first_failure;
  test.details = first_failure == Verdict::passed ? std::to_string(graded) + " runs passed" : first_details;
  if (!item.build_flags.empty() && first_failure == Verdict::passed) {
    test.details += " (built with";
    for (const auto& flag : item.build_flags) test.details += " " + flag;
    test.details += ")";
  }
  test.score = first_failure == Verdict::passed ? item.points : 0;
  if (graded == 0 && first_failure == Verdict::passed) {
    test.verdict = Verdict::not_run;
    test.details = "every case of this item is hidden; it is graded when staff grade";
    test.score = 0;
  }
  item_verdicts_[item.name] = test.verdict;
}

bool Grading::prerequisites_passed(const PerformanceItem& item, std::string& missing) const {
  std::vector<std::string> needed = item.requires_items;
  if (needed.empty()) {
    for (const auto& c : spec_.correctness)
      for (const auto& v : c.variants)
        if (v == item.variant) needed.push_back(c.name);
  }
  for (const auto& name : needed) {
    auto it = item_verdicts_.find(name);
    if (it == item_verdicts_.end() || (it->second != Verdict::passed && it->second != Verdict::not_run)) {
      missing += (missing.empty() ? "" : ", ") + name;
    }
  }
  return missing.empty();
}

void Grading::fill_rates(const PerformanceItem& item, const Variables& params, Timing& timing) const {
  Summary summary = summarize(timing.seconds);
  timing.median = summary.median;
  timing.q1 = summary.q1;
  timing.q3 = summary.q3;
  Variables scope = machine_;
  for (const auto& [name, value] : params) scope[name] = value;
  if (timing.median > 0) {
    if (item.flops) timing.gflops = item.flops->evaluate(scope) / timing.median / 1e9;
    if (item.bytes) timing.gbps = item.bytes->evaluate(scope) / timing.median / 1e9;
  }
}

std::optional<Grading::Ceilings> Grading::roofline_ceilings(const PerformanceItem& item, const Variables& params) const {
  if (!calibration_) return std::nullopt;
  Ceilings c;
  if (spec_.gpu) {
    if (!calibration_->gpu) return std::nullopt;
    const auto& gpu = *calibration_->gpu;
    const bool fp32 = item.precision == "fp32";
    const double gbps = item.read_only_memory ? gpu.read_bandwidth_gbps : gpu.bandwidth_gbps;
    c.bytes_per_second = gbps * 1e9;
    c.flops_per_second = (fp32 ? gpu.sgemm_tflops : gpu.dgemm_tflops) * 1e12;
    c.memory_label = std::string(item.read_only_memory ? "read-only" : "read-write") + " device memory bandwidth (" +
                     fixed(gbps, 0) + " GB/s)";
    c.compute_label = std::string(fp32 ? "FP32 (cuBLAS SGEMM, " : "FP64 (cuBLAS DGEMM, ") +
                      fixed(fp32 ? gpu.sgemm_tflops : gpu.dgemm_tflops, 1) + " TFLOP/s)";
    c.possible_bytes_per_second = c.bytes_per_second;
    c.possible_flops_per_second = c.flops_per_second;
    return c;
  }
  Variables scope = machine_;
  for (const auto& [name, value] : params) scope[name] = value;
  const double threads_used = std::clamp(item.cpu_threads.evaluate(scope), 1.0, std::max(1.0, machine_.at("threads")));
  const bool one_thread = threads_used <= 1;
  const auto& cpu = calibration_->cpu;
  const bool read = item.read_only_memory;
  const double gbps_1t = read ? cpu.read_bandwidth_1t_gbps : cpu.bandwidth_1t_gbps;
  const double gbps = one_thread ? gbps_1t : (read ? cpu.read_bandwidth_all_gbps : cpu.bandwidth_all_gbps);
  const double gflops = one_thread ? cpu.peak_fp64_gflops_1t : cpu.peak_fp64_gflops_all;
  const std::string threads_label = one_thread ? "1 thread" : "all threads";
  c.bytes_per_second = gbps * 1e9;
  c.flops_per_second = gflops * 1e9;
  c.memory_label = std::string(read ? "read-only" : "read-write") + " memory bandwidth (" + threads_label + ", " +
                   fixed(gbps, 1) + " GB/s)";
  c.compute_label = "FP64 peak (" + threads_label + ", " + fixed(gflops, 1) + " GFLOP/s)";
  c.possible_bytes_per_second = std::max(gbps, threads_used * gbps_1t) * 1e9;
  c.possible_flops_per_second = std::max(gflops, threads_used * cpu.peak_fp64_gflops_1t) * 1e9;
  return c;
}

std::string Grading::cross_check_times(Worker& cand, const std::string& variant, double cand_reported, Worker& base,
                                       const std::string& base_variant, double base_reported, bool base_is_judge,
                                       int reps, FreshCalls& fresh) {
  // Two runs of `reps` and `3 * reps` calls, timed from here: their difference is the cost of 2 * reps calls
  // with the command's fixed costs (the pipe, the reply) cancelled out. It still includes what the harness
  // does around each call (poisoning, cache flushes): the judge, with the same harness, measures that.
  auto outside_per_call = [&](Worker& worker, const std::string& v, double& per_call) {
    TimedCalls ignored;
    const double timeout = spec_.limits.wall_seconds;
    // Fresh inputs here too, so these calls cost what the timed ones did; named before the clock starts.
    const std::string short_name = fresh.next(v, reps);
    const std::string long_name = fresh.next(v, 3 * reps);
    auto start = steady::now();
    if (!worker.time(short_name, 0, reps, false, timeout, ignored)) return false;
    const double short_run = seconds_since(start);
    start = steady::now();
    if (!worker.time(long_name, 0, 3 * reps, false, timeout, ignored)) return false;
    per_call = (seconds_since(start) - short_run) / (2.0 * reps);
    return true;
  };
  // One stall of the host (another process, the page cache) can swallow a whole try, so a submission is
  // only suspected when every one of a few tries disagrees.
  constexpr int tries = 3;
  std::string disagreement;
  for (int attempt = 0; attempt < tries; ++attempt) {
    double cand_outside = 0, base_outside = 0;
    if (!outside_per_call(cand, variant, cand_outside)) return "";  // the caller sees the dead worker
    double harness_overhead = 0;
    if (base_is_judge && outside_per_call(base, base_variant, base_outside))
      harness_overhead = std::max(0.0, base_outside - base_reported);
    const double implied = cand_outside - harness_overhead;
    const double discrepancy = (implied - cand_reported) * 2.0 * reps;
    // Half the time seen from outside, and a difference far beyond timer noise (5 ms over the runs).
    if (!(cand_reported * 2 < implied && discrepancy > 5e-3)) return "";
    disagreement = "the submission reported " + fixed(cand_reported * 1e3, 3) + " ms per call, but the grader measured " +
                   fixed(implied * 1e3, 3) + " ms per call from outside, " + std::to_string(tries) +
                   " times over: its timings cannot be trusted";
  }
  return disagreement;
}

void Grading::measure(const PerformanceItem& item, TestResult& test) {
  const Variables params = case_params(item.params, machine_);
  const std::uint64_t seed = derive_seed(options_.seed, "performance/" + item.name);
  const Tolerance& tolerance = tolerance_for(spec_, std::nullopt, item.tolerance);
  // Every timed call gets inputs of its own (measure/fresh.h): a submission cannot reuse work from an earlier
  // call, and the judge replays the inputs of the calls whose outputs are checked.
  FreshCalls fresh(derive_seed(options_.seed, "fresh/" + item.name));
  auto fail = [&](Verdict verdict, const std::string& details) {
    test.verdict = verdict;
    test.details = details;
    test.score = 0;
  };

  // The oracle: the judge's naive code on the same inputs.
  progress("performance: " + item.name + ": computing the expected outputs");
  Worker& j = judge();
  std::vector<Array> expected;
  double judge_seconds = 0;
  if (!j.alive() || !j.setup(params, seed, {}, judge_timeout()) || !j.run(item.variant, judge_timeout(), expected, judge_seconds)) {
    judge_.reset();
    return fail(Verdict::internal_error, "the judge failed: " + j.failure().details);
  }

  // The baseline: the judge itself (already set up with these inputs) unless the item compares the
  // candidate with itself or uses other parameters.
  const std::string baseline_variant = item.baseline.variant.empty() ? item.variant : item.baseline.variant;
  Worker* baseline = &j;
  std::unique_ptr<Worker> separate_baseline;
  if (item.baseline.process == BaselineSpec::Process::candidate || !item.baseline.params.empty()) {
    const bool on_candidate = item.baseline.process == BaselineSpec::Process::candidate;
    separate_baseline = start_worker(on_candidate ? candidate_build_.executable : lab_.judge,
                                     on_candidate ? "baseline-candidate" : "baseline-judge");
    const Variables baseline_params = with_overrides(params, item.baseline.params, machine_);
    if (!separate_baseline->alive() || !separate_baseline->setup(baseline_params, seed, {}, judge_timeout())) {
      const auto& failure = separate_baseline->failure();
      return fail(on_candidate ? failure.verdict : Verdict::internal_error, "the baseline run failed: " + failure.details);
    }
    baseline = separate_baseline.get();
  }

  Worker& cand = candidate();
  if (!cand.alive() || !cand.setup(params, seed, {}, judge_timeout())) {
    Verdict v = cand.failure().verdict;
    retire_candidate_if_dead();
    return fail(v == Verdict::passed ? Verdict::internal_error : v, cand.failure().details);
  }

  // Interleave baseline and candidate in rounds, so a change in the machine's load touches both alike;
  // warm up first; stop once both are steady, or at the lab's repetition or time budget.
  progress("performance: " + item.name + ": timing");
  const auto& timing = spec_.timing;
  const bool baseline_is_candidate_code =
      separate_baseline != nullptr && item.baseline.process == BaselineSpec::Process::candidate;
  Measurement m;
  m.candidate.label = "candidate " + item.variant;
  m.baseline.label = std::string(baseline_is_candidate_code ? "candidate " : "judge ") + baseline_variant;
  Timing cap;  // the judge's cap of a candidate baseline (baseline.cap), timed in the same rounds
  cap.label = "judge " + item.baseline.cap;
  const auto start = steady::now();
  int reps_per_round = 1;
  const double command_timeout = spec_.limits.wall_seconds;

  // While one side is timed, the processes running the submission's code on the other side must be idle.
  QuietWatch quiet;
  auto timed = [&](Worker& worker, const std::string& name, int warmup, int reps, bool outputs, TimedCalls& into) {
    std::vector<QuietWatch::Watched> watched;
    if (&worker != &cand && cand.alive()) watched.push_back({cand.process().pid(), "submission's process"});
    if (baseline_is_candidate_code && &worker != separate_baseline.get() && separate_baseline->alive())
      watched.push_back({separate_baseline->process().pid(), "submission's baseline process"});
    quiet.before(watched);
    const auto began = steady::now();
    const bool ok = worker.time(name, warmup, reps, outputs, command_timeout, into);
    quiet.after(seconds_since(began));
    return ok;
  };

  // The outputs of one timed call of each round come back; the judge replays that call's inputs and the two
  // must agree. The judge's naive code can cost far more than a round (lab 3: a second against 0.1 s), so a
  // round is checked with a probability that keeps checking to about the time spent timing, at least 1 in 4,
  // drawn from the run's secret seed; the first and the last round are always checked.
  std::mt19937_64 pick(derive_seed(options_.seed, "check/" + item.name));
  double check_seconds = 0, last_check_seconds = 0;
  std::optional<std::pair<Verdict, std::string>> check_failure;
  auto verify = [&](const std::vector<Array>& got, std::uint64_t call) {
    std::vector<Array> want;
    double ignored = 0;
    const auto began = steady::now();
    if (!j.run(fresh.replay(item.variant, call), judge_timeout(), want, ignored)) {
      check_failure = {Verdict::internal_error, "the judge failed on a timed call's inputs: " + j.failure().details};
      return false;
    }
    last_check_seconds = seconds_since(began);
    check_seconds += last_check_seconds;
    const OutputsCheck check = check_outputs(got, want, tolerance);
    if (check.oracle_invalid)
      check_failure = {Verdict::internal_error, "the judge's outputs for a timed call's inputs hold NaN or Inf"};
    else if (!check.passed)
      check_failure = {Verdict::wrong_answer, "the outputs of timed call " + std::to_string(call) +
                                                  " (its inputs fresh, like every timed call's) are wrong: " + check.summary};
    return !check_failure;
  };
  struct Unchecked {
    std::vector<Array> outputs;
    std::uint64_t call = 0;
  };
  std::optional<Unchecked> unchecked;  // the last round's outputs, when that round was not checked yet

  for (int round = 0;; ++round) {
    const int warmup = round == 0 ? timing.warmup : 0;
    // Only the last call of a round is checked. With the same number of calls in every round, counting calls
    // between the pauses would tell a submission which call that is; so each round has a secret length.
    const int calls = std::uniform_int_distribution<int>(1, reps_per_round)(pick);
    const auto round_start = steady::now();
    TimedCalls base_calls, cap_calls, cand_calls;
    if (!timed(*baseline, fresh.next(baseline_variant, warmup + calls), warmup, calls, false, base_calls)) {
      const auto& failure = baseline->failure();
      return fail(baseline_is_candidate_code ? failure.verdict : Verdict::internal_error,
                  "the baseline run failed: " + failure.details);
    }
    if (!item.baseline.cap.empty() &&
        !timed(j, fresh.next(item.baseline.cap, warmup + calls), warmup, calls, false, cap_calls))
      return fail(Verdict::internal_error, "the judge's " + item.baseline.cap + " failed: " + j.failure().details);
    const std::string cand_name = fresh.next(item.variant, warmup + calls);
    const std::uint64_t checked_call = fresh.last_call();
    if (!timed(cand, cand_name, warmup, calls, /*want_outputs=*/true, cand_calls)) {
      Verdict v = cand.failure().verdict;
      std::string details = cand.failure().details;
      retire_candidate_if_dead();
      return fail(v, details);
    }
    if (cand_calls.outputs_changed)
      return fail(Verdict::suspect, "the outputs changed after the timed call had returned: work was left running "
                                    "outside the timed region");
    if (cand_calls.busy_threads > 0)
      return fail(Verdict::suspect, std::to_string(cand_calls.busy_threads) + " thread(s) of the submission were still "
                                    "running after the timed call returned");
    const double round_seconds = seconds_since(round_start);
    const double check_chance =
        last_check_seconds > 0 ? std::clamp(round_seconds / last_check_seconds, 0.25, 1.0) : 1.0;
    if (round == 0 || std::uniform_real_distribution<double>(0, 1)(pick) < check_chance) {
      unchecked.reset();
      if (!verify(cand_calls.outputs, checked_call)) return fail(check_failure->first, check_failure->second);
    } else {
      unchecked = Unchecked{std::move(cand_calls.outputs), checked_call};
    }
    m.baseline.seconds.insert(m.baseline.seconds.end(), base_calls.seconds.begin(), base_calls.seconds.end());
    cap.seconds.insert(cap.seconds.end(), cap_calls.seconds.begin(), cap_calls.seconds.end());
    m.candidate.seconds.insert(m.candidate.seconds.end(), cand_calls.seconds.begin(), cand_calls.seconds.end());

    if (round == 0) {
      // Rounds of about 20 ms each: short calls are batched so per-command overhead stays negligible.
      const double slowest = std::max(summarize(m.baseline.seconds).median, summarize(m.candidate.seconds).median);
      reps_per_round = slowest > 0 ? static_cast<int>(std::clamp(0.02 / slowest, 1.0, 256.0)) : 1;
    }
    const int reps = static_cast<int>(m.candidate.seconds.size());
    const double noise = std::max(summarize(m.baseline.seconds).relative_spread(), summarize(m.candidate.seconds).relative_spread());
    const bool enough = reps >= timing.min_reps;
    // The judge's checks are not timing: they do not use up the timing budget.
    const double spent = seconds_since(start) - check_seconds;
    if (enough && (noise <= timing.target_noise || reps >= timing.max_reps || spent >= timing.max_seconds)) break;
    if (spent >= 3 * timing.max_seconds) break;  // never more than this, even below min_reps
  }
  if (unchecked && !verify(unchecked->outputs, unchecked->call)) return fail(check_failure->first, check_failure->second);
  if (const std::string why = quiet.verdict(); !why.empty()) return fail(Verdict::suspect, why);

  // Figures for the report only: the judge's professional implementations (cuBLAS, CUB, OpenBLAS), or
  // "candidate:<variant>" for the student's other versions (lab2's table of all six loop orders). Timed
  // after, on the inputs as set up (not fresh: they earn nothing). Every variant of a lab computes the same
  // function, so the judge's outputs are the expected ones; a candidate version whose outputs are wrong is
  // labelled so, not timed.
  for (const auto& entry : item.compare) {
    const bool on_candidate = entry.rfind("candidate:", 0) == 0;
    const std::string variant = on_candidate ? entry.substr(std::string("candidate:").size()) : entry;
    Worker& worker = on_candidate ? cand : j;
    TimedCalls calls;
    Timing t;
    t.label = (on_candidate ? "candidate " : "judge ") + variant;
    if (!worker.alive() || !worker.time(variant, timing.warmup, timing.min_reps, on_candidate, command_timeout, calls)) {
      t.label += " (failed: " + worker.failure().details + ")";
      retire_candidate_if_dead();
    } else if (on_candidate && !check_outputs(calls.outputs, expected, tolerance).passed) {
      t.label += " (wrong answer: not timed)";
    } else {
      t.seconds = calls.seconds;
      fill_rates(item, params, t);
    }
    m.compare.push_back(t);
  }

  // The bound (lab 6's transfer bound): the baseline when that is it, else timed now like a compare entry.
  std::optional<Timing> bound;
  if (!item.bound.empty()) {
    if (baseline == &j && baseline_variant == item.bound) {
      bound = m.baseline;
    } else {
      for (const auto& t : m.compare)
        if (t.label == "judge " + item.bound && !t.seconds.empty()) bound = t;
      if (!bound) {
        TimedCalls calls;
        if (!timed(j, fresh.next(item.bound, timing.warmup + timing.min_reps), timing.warmup, timing.min_reps, false, calls))
          return fail(Verdict::internal_error, "the judge's " + item.bound + " failed: " + j.failure().details);
        bound = Timing{};
        bound->label = "judge " + item.bound;
        bound->seconds = calls.seconds;
      }
    }
  }

  // The times above are the workers' own; a submission shares its process with the timer. Check them
  // against the grader's own clock before they earn anything.
  const std::string unreconciled =
      cross_check_times(cand, item.variant, summarize(m.candidate.seconds).median, *baseline, baseline_variant,
                        summarize(m.baseline.seconds).median, baseline == &j, reps_per_round, fresh);
  if (!cand.alive()) {
    Verdict v = cand.failure().verdict;
    std::string details = cand.failure().details;
    retire_candidate_if_dead();
    return fail(v, details);
  }

  fill_rates(item, params, m.candidate);
  fill_rates(item, params, m.baseline);
  if (!cap.seconds.empty()) {
    // The yardstick is the faster of the candidate's own baseline and the judge's cap: slowing the baseline
    // down buys nothing beyond the judge's time.
    fill_rates(item, params, cap);
    if (cap.median < m.baseline.median) {
      cap.label += " (caps " + m.baseline.label + ", which took " + fixed(m.baseline.median * 1e3, 2) + " ms)";
      std::swap(cap, m.baseline);
    }
    m.compare.push_back(cap);
  }
  m.speedup = m.baseline.median / m.candidate.median;
  m.speedup_low = m.candidate.q3 > 0 ? m.baseline.q1 / m.candidate.q3 : 0;
  m.speedup_high = m.candidate.q1 > 0 ? m.baseline.q3 / m.candidate.q1 : 0;

  // Roofline: the time this machine needs at least, over the time taken.
  if (auto ceilings = roofline_ceilings(item, params)) {
    Variables scope = machine_;
    for (const auto& [name, value] : params) scope[name] = value;
    const double memory_floor = item.bytes ? item.bytes->evaluate(scope) / ceilings->bytes_per_second : 0;
    const double compute_floor = item.flops ? item.flops->evaluate(scope) / ceilings->flops_per_second : 0;
    if (item.flops || item.bytes) {
      m.roofline_bound = memory_floor >= compute_floor ? ceilings->memory_label : ceilings->compute_label;
      m.roofline_fraction = std::max(memory_floor, compute_floor) / m.candidate.median;
      const double fewest_seconds =
          std::max(item.bytes ? item.bytes->evaluate(scope) / ceilings->possible_bytes_per_second : 0,
                   item.flops ? item.flops->evaluate(scope) / ceilings->possible_flops_per_second : 0);
      m.possible_fraction = fewest_seconds / m.candidate.median;
    }
  }
  test.measurement = m;
  if (!unreconciled.empty()) return fail(Verdict::suspect, unreconciled);
  if (bound) {
    const double bound_median = summarize(bound->seconds).median;
    if (m.candidate.median > 0 && bound_median / m.candidate.median > believable_roofline)
      return fail(Verdict::suspect, "measured " + fixed(bound_median / m.candidate.median, 2) + " times faster than the " +
                                        bound->label + ", which no code beats by much: the timing was fooled (work "
                                        "outside the timed call, or kept from an earlier call?)");
  }
  score_measurement(item, params, test);
}

void Grading::score_measurement(const PerformanceItem& item, const Variables& params, TestResult& test) {
  Measurement& m = *test.measurement;
  Variables scope = machine_;
  for (const auto& [name, value] : params) scope[name] = value;
  std::vector<EvaluatedTier> tiers;
  for (const auto& tier : item.tiers) tiers.push_back({tier.at.evaluate(scope), tier.points});
  m.threshold_full = tiers.empty() ? 0 : tiers.back().at;

  if (item.metric == Metric::roofline && m.roofline_fraction <= 0) {
    test.verdict = Verdict::internal_error;
    test.details = "this item is graded against the machine's roofline and the machine is not calibrated for it "
                   "(run `grader calibrate`)";
    test.score = 0;
    return;
  }
  if (m.possible_fraction > believable_roofline) {
    test.verdict = Verdict::suspect;
    test.details = "measured at " + fixed(100 * m.roofline_fraction, 0) + "% of this machine's roofline (" +
                   fixed(100 * m.possible_fraction, 0) + "% of the most its threads could do), which no code "
                   "reaches: the timing was fooled (work outside the timed call?)";
    test.score = 0;
    return;
  }
  m.metric_value = item.metric == Metric::speedup ? m.speedup : m.roofline_fraction;
  test.score = tier_points(tiers, m.metric_value);
  test.verdict = test.score >= item.max_points() - 1e-9 ? Verdict::passed : Verdict::below_threshold;
  const std::string what = item.metric == Metric::speedup ? "speedup " + fixed(m.speedup, 2) + "x"
                                                          : fixed(100 * m.roofline_fraction, 1) + "% of the roofline";
  const std::string target = item.metric == Metric::speedup ? fixed(m.threshold_full, 2) + "x"
                                                            : fixed(100 * m.threshold_full, 0) + "%";
  test.details = item.max_points() > 0 ? what + "; full marks from " + target : what + "; for the report only (no points)";
}

std::string Grading::machine_shortfall(const PerformanceItem& item) const {
  std::string shortfall;
  for (const auto& [name, least] : item.requires_machine) {
    const double value = machine_.at(name);
    if (value + 1e-9 >= least) continue;
    shortfall += (shortfall.empty() ? "" : "; ") + name + " is " + fixed(value, 2) + " here, the item needs " + fixed(least, 2);
    if (name == "memory_scaling") shortfall += " (all threads read only " + fixed(value, 2) + "x what one thread reads)";
    if (name == "cpu_scaling") shortfall += " (all threads compute only " + fixed(value, 2) + "x what one thread does)";
  }
  return shortfall;
}

void Grading::grade_performance(const PerformanceItem& item, TestResult& test) {
  test.kind = TestKind::performance;
  test.max_score = item.max_points();
  test.visibility = item.visibility;
  if (options_.quick || !options_.sanitize.empty()) {
    test.verdict = Verdict::not_run;
    test.details = options_.quick ? "--quick: correctness only" : "--sanitize: correctness only (the sanitizer distorts timing)";
    return;
  }
  if (const std::string shortfall = machine_shortfall(item); !shortfall.empty()) {
    test.verdict = Verdict::not_run;
    test.max_score = 0;
    test.details = "not measurable on this machine, so its " + fixed(item.max_points(), 0) +
                   " points are left out of the total here: " + shortfall;
    return;
  }
  std::string missing;
  if (!prerequisites_passed(item, missing)) {
    test.verdict = Verdict::not_run;
    test.details = "needs these correctness items to pass first: " + missing;
    return;
  }
  const std::string key = measurement_key(item);
  auto done = measurements_.find(key);
  if (done == measurements_.end()) {
    // A batch grades several students at once but times one at a time. The slot is taken only when there
    // is something to time, so students who fail correctness never queue for it.
    if (!timing_lock_.owns_lock()) {
      if (options_.performance_mutex != nullptr) timing_lock_ = std::unique_lock<std::mutex>(*options_.performance_mutex);
      // The race detectors' build of the submission is done with: it must not run beside the timing.
      for (auto& [flags, built] : flag_builds_)
        if (built.worker) {
          built.worker->quit();
          harvest_output(*built.worker);
          built.worker.reset();
        }
    }
    const ForeignLoad load;
    measure(item, test);
    // A fifth of a core: well above the machine's own housekeeping, well below what moved lab3's scores.
    if (const double cores = load.cores(); cores > 0.2) {
      disturbed_items_.push_back(item.name);
      worst_foreign_cores_ = std::max(worst_foreign_cores_, cores);
    }
    measurements_[key] = test;
    return;
  }
  // Same timing, this item's own tiers.
  test.verdict = done->second.verdict;
  test.details = done->second.details;
  test.measurement = done->second.measurement;
  test.score = 0;
  if (test.measurement && (test.verdict == Verdict::passed || test.verdict == Verdict::below_threshold))
    score_measurement(item, case_params(item.params, machine_), test);
}

void Grading::run() {
  const auto start = steady::now();
  report_.machine = describe_machine();
  calibration_ = load_calibration(env_);
  const bool missing = !calibration_ || (spec_.gpu && !calibration_->gpu && !detect_gpu_arch().empty());
  if (missing && needs_calibration(spec_) && !options_.quick) {
    progress("calibrating this machine once (memory bandwidth, FP64 peak); `grader calibrate` redoes it");
    calibration_ = run_calibration(env_);
  }
  if (calibration_) {
    attach_calibration(report_.machine, *calibration_);
    add_calibrated_scaling(machine_, *calibration_);
    if (!report_.machine.calibration_stable)
      report_.warnings.push_back("this machine's calibration never settled (it was taken while other programs ran): "
                                 "roofline fractions may be off; run `grader calibrate` on a quiet machine");
  }

  prepare_workdir();
  // A student release holds no hidden cases, only their number: the report still says how many there are.
  if (!options_.include_hidden) report_.hidden_tests_skipped += spec_.withheld;
  else if (spec_.withheld > 0)
    report_.warnings.push_back("this lab.toml is a student release: " + std::to_string(spec_.withheld) +
                               " hidden case(s) or item(s) are not in it, so --hidden cannot run them; grade "
                               "from the course repository");
  // Every item appears in the report, even when the submission never got as far as running it.
  for (const auto& item : spec_.correctness)
    report_.tests.push_back({item.name, TestKind::correctness, Verdict::not_run, 0, item.points, "", Visibility::visible, {}, {}});
  for (const auto& item : spec_.performance) {
    if (item.visibility != Visibility::visible && !options_.include_hidden) {
      ++report_.hidden_tests_skipped;
      continue;
    }
    report_.tests.push_back({item.name, TestKind::performance, Verdict::not_run, 0, item.max_points(), "", item.visibility, {}, {}});
  }

  if (build_everything()) {
    if (spec_.gpu && detect_gpu_arch().empty()) {
      report_.verdict = Verdict::not_run;
      report_.verdict_details = "built, but not run: no CUDA GPU was found on this machine";
      for (auto& test : report_.tests) test.details = "no CUDA GPU on this machine";
    } else {
      report_.isolation = "own process group, rlimits (CPU, memory, processes, files), clean environment" +
                          std::string(::geteuid() == 0 ? ", unprivileged user" : "") + "; " +
                          Sandbox::get().description();
      std::size_t index = 0;
      for (const auto& item : spec_.correctness) grade_correctness(item, report_.tests[index++]);
      for (const auto& item : spec_.performance) {
        if (item.visibility != Visibility::visible && !options_.include_hidden) continue;
        grade_performance(item, report_.tests[index++]);
      }
      timing_lock_ = {};
      warn_if_busy(disturbed_items_, worst_foreign_cores_);
    }
  } else {
    for (auto& test : report_.tests) {
      test.verdict = report_.verdict;
      test.details = std::string(info(report_.verdict).label) + ": nothing could run";
    }
  }

  if (candidate_) {
    candidate_->quit();
    harvest_output(*candidate_);
  }
  for (auto& [flags, built] : flag_builds_)
    if (built.worker) {
      built.worker->quit();
      harvest_output(*built.worker);
    }
  if (judge_) judge_->quit();
  report_.sanitizer_tool = options_.sanitize;
  report_.score = 0;
  report_.max_score = 0;
  for (const auto& test : report_.tests) {
    report_.score += test.score;
    report_.max_score += test.max_score;
  }
  report_.wall_seconds = seconds_since(start);
  if (!options_.keep_workdir) {
    std::error_code ec;
    fs::remove_all(workdir_, ec);
  }
}

}  // namespace

std::uint64_t fresh_seed() {
  std::random_device device;
  // 53 bits, like the case seeds: a seed read back from JSON by a tool that uses doubles still replays.
  return ((static_cast<std::uint64_t>(device()) << 32) ^ device()) >> 11;
}

std::uint64_t derive_seed(std::uint64_t run_seed, const std::string& name) {
  std::uint64_t hash = 1469598103934665603ULL;  // FNV-1a of the name, then splitmix64 with the run's seed
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ULL;
  std::uint64_t z = run_seed + hash + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) >> 11;  // 53 bits: survives JSON's doubles exactly
}

Report grade_submission(const Environment& env, const LabSpec& spec, const GradeOptions& options) {
  Report report;
  report.lab = spec.id;
  report.lab_name = spec.name();
  report.title = spec.title;
  report.submission = options.submission.string();
  report.seed = options.seed;
  report.max_score = spec.max_score();
  Grading grading(env, spec, options, report);
  grading.run();
  return report;
}

}  // namespace grader
