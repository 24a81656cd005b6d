#include "batch/student.h"

#include <unistd.h>

#include <cctype>
#include <chrono>
#include <ctime>

#include "batch/gpu_slots.h"
#include "batch/intake.h"
#include "bundle/bundle.h"
#include "build/build.h"
#include "calibrate/calibration.h"
#include "pipeline/grade.h"
#include "report/writers.h"
#include "core/utc_time.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

std::string intake_kind(const Submission& s) {
  if (s.is_folder) return "folder";
  if (!s.files.empty()) return "files";
  switch (s.archive) {
    case ArchiveFormat::zip: return "zip";
    case ArchiveFormat::tar_gz: return "tar.gz";
    case ArchiveFormat::tar: return "tar";
    default: return "other";
  }
}

// What the pipeline reports for a submission that fails staging (every item carries the verdict), for one
// that never got that far.
Report refused_report(const LabSpec& spec, const Submission& s, std::uint64_t seed, Verdict verdict, const std::string& why) {
  Report report;
  report.lab = spec.id;
  report.lab_name = spec.name();
  report.title = spec.title;
  report.submission = s.path.string();
  report.seed = seed;
  report.verdict = verdict;
  report.verdict_details = why;
  report.machine = describe_machine();
  const std::string not_run = std::string(info(verdict).label) + ": nothing could run";
  for (const auto& item : spec.correctness)
    report.tests.push_back({item.name, TestKind::correctness, verdict, 0, item.points, not_run, Visibility::visible, {}, {}, {}});
  for (const auto& item : spec.performance)
    report.tests.push_back({item.name, TestKind::performance, verdict, 0, item.max_points(), not_run, item.visibility, {}, {}, {}});
  report.max_score = spec.max_score();
  return report;
}

// A private, empty folder for one student's archive, removed with everything in it.
class WorkFolder {
 public:
  WorkFolder(const fs::path& scratch, const std::string& id) {
    fs::create_directories(scratch);
    std::string safe;
    for (char c : id) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
    std::string pattern = (scratch / (safe.substr(0, 64) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a work folder in " + scratch.string());
    path_ = pattern;
  }
  ~WorkFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

Report grade_folder(const Environment& env, const LabSpec& spec, const fs::path& folder, std::uint64_t seed,
                    const StudentGrading& grading) {
  std::optional<BundleWriter> bundle;
  std::string no_bundle;  // why, when there should be one
  GradeOptions options;
  if (!grading.bundle.empty()) {
    try {
      bundle.emplace(grading.bundle);
      options.keep_staged_in = bundle->staged_copy();
    } catch (const std::exception& error) {
      no_bundle = error.what();
    }
  }
  options.submission = folder;
  options.seed = seed;
  options.quick = grading.quick;
  options.counters = grading.counters;
  options.include_hidden = true;  // staff grading: hidden cases and items too
  options.timing_gate = grading.timing_gate;
  options.claim_gpu = grading.claim_gpu;
  options.progress = grading.progress;
  Report report = grade_submission(env, spec, options);
  if (bundle) {
    try {
      bundle->finish(env, spec, options, report);
    } catch (const std::exception& error) {
      no_bundle = error.what();
    }
  }
  // The grade stands; the report says its evidence could not be kept.
  if (!no_bundle.empty()) report.warnings.push_back("no replay bundle was written: " + no_bundle);
  return report;
}

}  // namespace

std::uint64_t student_seed(std::uint64_t batch_seed, const std::string& id) { return derive_seed(batch_seed, "student/" + id); }

GradedStudent grade_student(const Environment& env, const LabSpec& spec, const Submission& submission,
                            const StudentGrading& grading, std::optional<std::uint64_t> seed) {
  const std::uint64_t student = seed.value_or(student_seed(grading.batch_seed, submission.id));
  const auto start = std::chrono::steady_clock::now();
  GradedStudent graded;
  bool refused = false;
  std::vector<std::string> case_mismatches;
  try {
    std::optional<WorkFolder> work;
    if (!submission.is_folder && submission.refusal.empty()) work.emplace(grading.scratch, submission.id);
    const Intake intake = take_in(submission, spec.build.student_files, work ? work->path() : fs::path(), grading.limits);
    case_mismatches = intake.case_mismatches;
    if (intake.folder.empty()) {
      refused = true;
      graded.report = refused_report(spec, submission, student, intake.verdict, intake.refusal);
    } else {
      graded.report = grade_folder(env, spec, intake.folder, student, grading);
      graded.report.submission = submission.path.string();  // where the TA finds it, not the work folder
    }
  } catch (const MissingToolchain&) {
    throw;
  } catch (const NoGpuLeft&) {
    throw;
  } catch (const std::exception& error) {
    graded.report = internal_error_report(spec.id, submission.path.string(), error.what());
    graded.report.lab_name = spec.name();
    graded.report.title = spec.title;
    graded.report.seed = student;
    graded.report.max_score = spec.max_score();
  }
  if (graded.report.wall_seconds <= 0)
    graded.report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  graded.batch = {{"student", submission.id},
                  {"source", submission.path.filename().string()},
                  {"intake", intake_kind(submission)},
                  {"refused", refused},
                  {"batch_seed", grading.batch_seed},
                  {"quick", grading.quick},
                  {"graded_at", utc_now_text()}};
  if (!grading.timing_mode.empty()) graded.batch["timing"] = grading.timing_mode;
  if (!case_mismatches.empty()) graded.batch["case_mismatches"] = case_mismatches;
  if (submission.late) graded.batch["late"] = true;
  return graded;
}

Report student_view(Report report) {
  for (auto& test : report.tests) {
    for (auto& c : test.cases) {
      if (c.visibility == Visibility::visible || c.verdict == Verdict::passed || c.verdict == Verdict::not_run) continue;
      // The pipeline names a test's first failing case in the test's details: "tall 4099 [unrolled]: ...".
      if (test.details.rfind(c.name + " [", 0) == 0)
        test.details = "a hidden case failed [" + c.variant + "]: " + std::string(info(c.verdict).label);
      c.name = "hidden case";
      c.details = "(details of hidden cases are not shown)";
    }
  }
  return report;
}

StudentFiles student_files(const GradedStudent& graded, bool gradescope) {
  StudentFiles files;
  files.text = render_text(student_view(graded.report), /*colour=*/false);
  files.report = to_json(graded.report);
  files.report["batch"] = graded.batch;
  if (gradescope) files.gradescope = to_gradescope(graded.report);
  return files;
}

}  // namespace grader
