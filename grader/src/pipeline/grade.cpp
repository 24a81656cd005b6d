// grade.cpp: one submission through every stage (docs/design.md, "The grading pipeline"): the run itself, the
// work directory, and the workers the stages share. Staging, the builds and the link policy are builds.cpp's;
// correctness items are graded in correctness.cpp, performance items in performance.cpp.
#include "pipeline/grade.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "pipeline/grading.h"
#include "pipeline/launch.h"
#include "run/sandbox.h"
#include "run/unprivileged.h"
#include "slurm/course_settings.h"

namespace grader {

namespace pipeline {

bool Grading::prepare_workdir() {
  std::string pattern = (fs::temp_directory_path() / ("grader-" + spec_.name() + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a work directory in /tmp");
  workdir_ = pattern;
  // Workers run as an unprivileged user when the grader is root: they must reach their executable.
  ::chmod(workdir_.c_str(), 0755);
  fs::create_directories(workdir_ / "src");
  return true;
}

void Grading::use_calibration(std::optional<Calibration> calibration) {
  calibration_ = std::move(calibration);
  if (!calibration_) return;
  attach_calibration(report_.machine, *calibration_);
  add_calibrated_scaling(machine_, *calibration_);
}

void Grading::warn_if_busy(const std::vector<std::string>& disturbed_items) {
  if (disturbed_items.empty()) return;
  std::string items;
  for (const auto& name : disturbed_items) items += (items.empty() ? "" : "; ") + name;
  report_.warnings.push_back("other programs used the CPU while this grading timed (" + items + "): the figures "
                             "and points of those items may be lower than on a quiet machine; grade again when it "
                             "is quiet");
}

std::unique_ptr<Worker> Grading::start_worker(const fs::path& executable, const std::string& role) {
  const fs::path dir = workdir_ / ("run-" + role + "-" + std::to_string(++workers_started_));
  fs::create_directories(dir);
  LaunchOptions launch = worker_launch_options(spec_, executable, dir);
  if (!visible_devices_.empty()) launch.environment["CUDA_VISIBLE_DEVICES"] = visible_devices_;
  if (is_compiler_sanitizer(options_.sanitize) && is_candidate_code(executable)) {
    // AddressSanitizer reserves terabytes of shadow address space: resident memory is bounded instead. Leak
    // checking at exit stops the process with ptrace, which the syscall filter refuses (and a leak costs nothing).
    launch.limits.limit_address_space = false;
    launch.environment["ASAN_OPTIONS"] = "detect_leaks=0:print_summary=1:halt_on_error=1";
    launch.environment["UBSAN_OPTIONS"] = "print_stacktrace=1";
    launch.limits.output_bytes = std::max<std::size_t>(launch.limits.output_bytes, 4u << 20);  // its findings
    launch.limits.wall_seconds *= sanitizer_slowdown;
    launch.limits.cpu_seconds *= sanitizer_slowdown;
  } else if (!options_.sanitize.empty() && is_candidate_code(executable)) {
    // Inside the sandbox, around the worker.
    for (const auto& word : {compute_sanitizer_path(env_), std::string("--tool"), options_.sanitize,
                             std::string("--print-limit"), std::string("20")})
      launch.wrapper.push_back(word);
    launch.limits.output_bytes = std::max<std::size_t>(launch.limits.output_bytes, 4u << 20);  // its findings
    launch.limits.wall_seconds *= sanitizer_slowdown;
    launch.limits.cpu_seconds *= sanitizer_slowdown;
  }
  const WorkerCode code = is_candidate_code(executable) ? WorkerCode::submission : WorkerCode::lab;
  auto worker = std::make_unique<Worker>(launch, role, code);
  std::vector<std::string> variants;
  worker->hello(variants, 60);  // a worker that cannot even greet is left dead; callers read failure()
  return worker;
}

void Grading::claim_gpu() {
  progress("waiting for a GPU", "waiting for a GPU");
  const GpuAssignment gpu = options_.claim_gpu();
  visible_devices_ = gpu.uuid;
  report_.machine.gpu_index = gpu.index;
  report_.machine.gpu_uuid = gpu.uuid;
  // Roofline fractions against this GPU's own ceilings: GPUs of one node differ a little.
  if (gpu.calibration && calibration_) {
    calibration_->gpu = gpu.calibration;
    attach_calibration(report_.machine, *calibration_);
  }
}

std::optional<Gpu> Grading::own_gpu() const {
  if (!spec_.gpu || options_.claim_gpu || detect_gpu_arch().empty()) return std::nullopt;
  try {
    const auto listed = list_gpus();
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    return listed ? grading_gpu(*listed, visible ? visible : "") : std::nullopt;
  } catch (const GpuRequestError&) {
    return std::nullopt;  // nvidia-smi failed: the machine's calibration stands in
  }
}

void Grading::use_gpu_calibration(const Gpu& gpu) {
  if (std::getenv("CUDA_VISIBLE_DEVICES") != nullptr) {  // given one GPU of a node (SLURM, or by hand): say which
    report_.machine.gpu_index = gpu.index;
    report_.machine.gpu_uuid = gpu.uuid;
  }
  std::optional<GpuCalibration> own = load_gpu_calibration(env_, gpu.uuid);
  if (!own && needs_calibration(spec_) && !options_.quick) {
    finish_inspect();  // a calibration is timed: the inspect stage's tools must not run beside it
    progress("calibration", "calibrating " + describe_gpu(gpu) + " once, kept by its UUID; `grader calibrate --gpus all` "
             "redoes it");
    try {
      own = run_gpu_calibrations(env_, {gpu.uuid}).front();
    } catch (const std::exception& error) {
      report_.warnings.push_back("this GPU could not be calibrated on its own (" + std::string(error.what()) +
                                 "): its roofline figures are the machine's");
    }
  }
  if (!own || !calibration_) return;
  calibration_->gpu = own;
  attach_calibration(report_.machine, *calibration_);
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

// The map is shared by correctness items graded at once (grade_all_correctness); a variant's process is used by one
// item's thread only, so a process is started and ended outside the lock.
Worker& Grading::candidate_for(const CorrectnessItem& item, const std::string& variant) {
  std::unique_ptr<Worker> dead;
  {
    std::lock_guard lock(shared_mutex_);
    auto& worker = variant_workers_[{item.build_flags, variant}];
    if (worker && worker->alive()) return *worker;
    dead = std::move(worker);
  }
  if (dead) harvest_output(*dead);
  const fs::path& executable =
      item.build_flags.empty() ? candidate_build_.executable : flag_build(item.build_flags).build.executable;
  std::unique_ptr<Worker> started =
      start_worker(executable, item.build_flags.empty() ? "candidate-" + variant : "candidate-flags-" + variant);
  std::lock_guard lock(shared_mutex_);
  auto& worker = variant_workers_[{item.build_flags, variant}];
  worker = std::move(started);
  return *worker;
}

void Grading::retire_if_dead(const CorrectnessItem& item, const std::string& variant) {
  bool dead = false;
  {
    std::lock_guard lock(shared_mutex_);
    auto found = variant_workers_.find({item.build_flags, variant});
    dead = found != variant_workers_.end() && found->second && !found->second->alive();
  }
  if (dead) retire_variant(item, variant);
}

void Grading::retire_variant(const CorrectnessItem& item, const std::string& variant) {
  std::unique_ptr<Worker> retired;
  {
    std::lock_guard lock(shared_mutex_);
    auto found = variant_workers_.find({item.build_flags, variant});
    if (found == variant_workers_.end() || !found->second) return;
    retired = std::move(found->second);
    variant_workers_.erase(found);
  }
  retired->quit();
  harvest_output(*retired);
}

void Grading::retire_all_variants() {
  for (auto& [key, worker] : variant_workers_)
    if (worker) {
      worker->quit();
      harvest_output(*worker);
    }
  variant_workers_.clear();
}

void Grading::harvest_output(Worker& worker) {
  worker.process().finish();
  std::string text = worker.process().stdout_text() + worker.process().stderr_text();
  std::lock_guard lock(shared_mutex_);  // correctness items graded at once harvest their processes from threads
  // A sanitizer's stack frames name the executable by its path in the work directory: students read
  // "candidate-sanitized+0xa0f9", not the grader's temporary folder.
  const std::string work_prefix = workdir_.string() + "/";
  for (auto at = text.find(work_prefix); at != std::string::npos; at = text.find(work_prefix, at)) text.erase(at, work_prefix.size());
  constexpr std::size_t shown = 4096;
  if (report_.candidate_output.size() < shown) report_.candidate_output += text.substr(0, shown - report_.candidate_output.size());
  if (options_.sanitize.empty()) return;
  if (is_compiler_sanitizer(options_.sanitize)) {
    // Each finding of AddressSanitizer ("ERROR: AddressSanitizer: heap-buffer-overflow") and of UBSan
    // ("src/matvec.cpp:12:9: runtime error: ...").
    int errors = 0;
    for (const std::string marker : {"ERROR: AddressSanitizer", ": runtime error: "})
      for (auto at = text.find(marker); at != std::string::npos; at = text.find(marker, at + 1)) ++errors;
    report_.sanitizer_errors = std::max(report_.sanitizer_errors, 0) + errors;
    if (report_.sanitizer_output.size() < 64 * 1024) report_.sanitizer_output += text.substr(0, 64 * 1024);
    return;
  }
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

void Grading::leave_out(TestResult& test) const {
  test.verdict = Verdict::not_run;
  test.max_score = 0;
  test.score = 0;
  test.details = "not graded in this run (--only " + options_.only + ")";
}

void Grading::run() {
  const auto start = steady::now();
  // In a batch, everything up to the first timed item is this grading's work: it runs beside other students'
  // work, never beside anyone's timing (pipeline/timing_gate.h).
  if (options_.timing_gate != nullptr) work_turn_.emplace(*options_.timing_gate);
  report_.machine = describe_machine();
  use_calibration(load_calibration(env_));

  prepare_workdir();
  // A student release holds no hidden cases, only their number: the report still says how many there are.
  if (!options_.include_hidden) report_.hidden_tests_skipped += spec_.withheld;
  else if (spec_.withheld > 0)
    report_.warnings.push_back("this lab.toml is a student release: " + std::to_string(spec_.withheld) +
                               " hidden case(s) or item(s) are not in it, so --hidden cannot run them; grade "
                               "from the course repository");
  // Every item appears in the report, even when the submission never got as far as running it.
  for (const auto& item : spec_.correctness)
    report_.tests.push_back({item.name, TestKind::correctness, Verdict::not_run, 0, item.points, "", Visibility::visible, {}, {}, {}});
  for (const auto& item : spec_.performance) {
    if (item.visibility != Visibility::visible && !options_.include_hidden) {
      ++report_.hidden_tests_skipped;
      continue;
    }
    report_.tests.push_back({item.name, TestKind::performance, Verdict::not_run, 0, item.max_points(), "", item.visibility, {}, {}, {}});
  }

  if (build_everything()) {
    inspect_code();
    // Only a submission that built is timed: one that did not never waits for a calibration it cannot use.
    // A GPU's figures are its own, by UUID: on a node of several, the machine's are some other GPU's.
    const std::optional<Gpu> gpu = own_gpu();
    const bool missing = !calibration_ || (spec_.gpu && !gpu && !calibration_->gpu && !detect_gpu_arch().empty());
    if (missing && needs_calibration(spec_) && !options_.quick) {
      finish_inspect();  // a calibration is timed: the inspect stage's tools must not run beside it
      progress("calibration", "calibrating this machine once (memory bandwidth, FP64 peak); `grader calibrate` redoes it");
      use_calibration(run_calibration(env_, /*measure_gpu=*/!gpu));
    }
    if (gpu) use_gpu_calibration(*gpu);
    if (calibration_ && !report_.machine.calibration_stable && !options_.quick)
      report_.warnings.push_back("this machine's calibration never settled (it was taken while other programs ran): "
                                 "roofline fractions may be off; run `grader calibrate` on a quiet machine");
    if (options_.claim_gpu) {
      try {
        claim_gpu();
      } catch (...) {  // no GPU left: this grading ends here, and leaves nothing behind
        if (inspecting_.valid()) inspecting_.wait();  // its tools read the work directory
        std::error_code ec;
        fs::remove_all(workdir_, ec);
        throw;
      }
    }
    if (spec_.gpu && detect_gpu_arch().empty()) {
      report_.verdict = Verdict::not_run;
      // The next line of every format says how to get one (issue 37).
      report_.verdict_details = "built, but not run: no CUDA GPU was found on this machine\n" +
                                how_to_get_a_gpu(env_, spec_.id, options_.submission, env_.root / "skeletons" / spec_.name());
      for (auto& test : report_.tests) test.details = "no CUDA GPU on this machine";
      check_steps();  // what the steps compiled to is read without a GPU
    } else {
      report_.isolation = "own process group, rlimits (CPU, memory, processes, files), clean environment" +
                          std::string(drops_privileges() ? ", unprivileged users for the build and the run" : "") + "; " +
                          Sandbox::get().description();
      grade_all_correctness();
      std::size_t index = spec_.correctness.size();
      for (const auto& item : spec_.performance) {
        if (item.visibility != Visibility::visible && !options_.include_hidden) continue;
        TestResult& test = report_.tests[index++];
        selected(item.name) ? grade_performance(item, test) : leave_out(test);
      }
      // Still in this grading's timing turn and on its GPU: the profiled calls disturb no one's timing.
      read_queued_counters();
      check_steps();
      if (!options_.only.empty())
        report_.warnings.push_back("--only " + options_.only + ": the other items were not graded, and the total "
                                   "counts only what was; grade without --only for the full score");
      timing_turn_.reset();
      warn_if_busy(disturbed_items_);
    }
    attach_facts();
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
  retire_all_variants();
  if (judge_) judge_->quit();
  report_.sanitizer_tool = options_.sanitize;
  if (!options_.sanitize.empty())
    report_.sanitizer_program = is_compiler_sanitizer(options_.sanitize) ? "GCC sanitizers" : "compute-sanitizer";
  sum_scores(report_);
  // An item the grader failed on (its judge, its dataset) leaves the grade incomplete: the report as a whole is an
  // internal error, so a batch gives it no Canvas cell and lists it under "Needs a person" (docs/ta-guide.md), while
  // the other items keep what they earned for whoever reads them.
  if (report_.verdict == Verdict::passed)
    for (const auto& test : report_.tests)
      if (test.verdict == Verdict::internal_error) {
        report_.verdict = Verdict::internal_error;
        // The item's details say how (not repeated here: they may name a hidden case, which student_view hides).
        report_.verdict_details = "the grader failed on \"" + test.name + "\", not the submission (the item's details "
                                  "say how); the other items were graded, but this grade is incomplete: grade again "
                                  "once it is fixed";
        break;
      }
  stages_.stop();
  report_.stage_seconds = stages_.totals();
  report_.wall_seconds = seconds_since(start);
  if (!options_.keep_workdir) {
    std::error_code ec;
    fs::remove_all(workdir_, ec);
  }
}

}  // namespace pipeline

bool is_compiler_sanitizer(const std::string& sanitize) {
  return sanitize == "address" || sanitize == "undefined" || sanitize == "address,undefined";
}

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
  pipeline::Grading grading(env, spec, options, report);
  grading.run();
  return report;
}

}  // namespace grader
