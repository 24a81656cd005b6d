#include "cli/selftest_steps.h"

#include <fstream>
#include <sstream>

#include "build/build.h"
#include "build/stage.h"
#include "core/scratch.h"
#include "inspect/facts.h"
#include "report/report.h"
#include "steps/step_verdicts.h"
#include "steps/substitution.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Writes the substitution of the reference into `dir`; throws with the reason when it cannot.
void write_substitution(const Environment& env, const LabSpec& spec, const fs::path& dir) {
  const fs::path reference = env.root / "reference" / spec.name();
  const fs::path build_dir = dir / "symbols";
  fs::create_directories(build_dir / "src");
  const StageResult staged = stage_submission(spec, reference, build_dir / "src");
  if (staged.verdict != Verdict::passed) throw std::runtime_error("the reference cannot be staged: " + staged.details);
  const LabBuild lab = build_lab(env, spec);
  const CandidateBuild built = compile_candidate(env, spec, lab, staged.sources, build_dir, {}, "symbols");
  if (built.verdict != Verdict::passed) throw std::runtime_error("the reference does not compile:\n" + built.log);
  // The symbols as the linker sees them, from the reference's own objects (host code, in a CUDA lab).
  const CpuFacts facts = read_cpu_facts(built.student_objects);
  std::map<std::string, std::string> symbols;
  std::string best_file;
  std::vector<std::string> functions{spec.steps.best};
  for (const auto& step : spec.steps.steps) functions.push_back(step.function);
  for (const auto& function : functions) {
    const CpuFunction* found = facts.find_by_name(function);
    if (found == nullptr) throw std::runtime_error("the reference defines no function " + function);
    symbols[function] = found->symbol;
    if (function == spec.steps.best) best_file = fs::path(found->object).stem().string();  // "loop_order.cpp.o"
  }
  std::map<std::string, std::string> files;
  for (const auto& name : spec.build.student_files) files[name] = read_text(reference / name);
  for (const auto& [name, text] : substituted_sources(spec.steps, files, symbols, best_file)) {
    std::ofstream out(dir / "submission" / name, std::ios::binary);
    out << text;
  }
}

// The steps whose items did not all lose their points with not_this_step: each one a problem line.
std::vector<std::string> uncaught_steps(const LabSpec& spec, const Report& report, SubstitutionVerdict& verdict) {
  std::vector<std::string> uncaught;
  verdict.caught.clear();
  for (const auto& step : spec.steps.steps) {
    std::string kept, seen;
    int graded = 0;
    for (const auto& test : report.tests) {
      if (!item_grades_variant(spec, test, step.variant) || test.max_score <= 0) continue;
      ++graded;
      if (test.verdict == Verdict::not_this_step && test.score <= 0) {
        if (seen.empty()) seen = test.details;
        continue;
      }
      kept += (kept.empty() ? "" : "; ") + test.name + ": " + std::string(info(test.verdict).label) + " (" +
              std::to_string(test.score) + " points)";
    }
    if (graded == 0) kept = "no item of this grading grades it";
    if (kept.empty()) verdict.caught.push_back(step.variant + ": " + seen);
    else uncaught.push_back(step.variant + ": " + kept);
  }
  return uncaught;
}

}  // namespace

SubstitutionVerdict check_substitution(const Environment& env, const LabSpec& spec, GradeOptions options) {
  SubstitutionVerdict verdict;
  if (spec.steps.empty()) return verdict;
  const fs::path dir = scratch_root() / ("substitution-" + spec.name());
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir / "submission");
  try {
    write_substitution(env, spec, dir);
  } catch (const std::exception& error) {
    verdict.problems.push_back("the substitution could not be built: " + std::string(error.what()));
    return verdict;
  }
  options.submission = dir / "submission";
  // The structure first: correctness only, with the steps' rules on the compiled code.
  options.quick = true;
  Report report = grade_submission(env, spec, options);
  std::vector<std::string> uncaught = uncaught_steps(spec, report, verdict);
  bool timed = false;  // a GPU lab on a machine without a GPU has its facts read, and no timing
  for (const auto& step : spec.steps.steps)
    timed = timed || (!step.judge.empty() && !uncaught.empty() && report.verdict == Verdict::passed);
  if (timed) {  // a step the structure let through: the timing bands, in a full grading
    options.quick = false;
    options.seed = fresh_seed();
    report = grade_submission(env, spec, options);
    uncaught = uncaught_steps(spec, report, verdict);
  }
  if (report.verdict != Verdict::passed && report.verdict != Verdict::not_run)
    verdict.problems.push_back("the substituted reference did not run: " + std::string(info(report.verdict).label) + ": " +
                               report.verdict_details);
  verdict.checked = report.verdict == Verdict::passed || report.verdict == Verdict::not_run;
  verdict.steps = spec.steps.steps.size();
  verdict.score = report.score;
  verdict.max_score = report.max_score;
  for (const auto& line : uncaught) verdict.problems.push_back("the best function substituted into step " + line);
  fs::remove_all(dir, ec);
  return verdict;
}

nlohmann::json to_json(const SubstitutionVerdict& verdict) {
  return {{"checked", verdict.checked}, {"caught", verdict.caught}, {"problems", verdict.problems},
          {"score", verdict.score}, {"max_score", verdict.max_score}, {"steps", verdict.steps}};
}

}  // namespace grader
