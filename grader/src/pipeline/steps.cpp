// steps.cpp: lab.toml [steps] in a grading (docs/design.md, "Steps"). Once every item is graded, each step is held to
// its rules: what its function compiled to (steps/step_rules.h, from the inspect stage's facts through
// steps/step_code.h), then, for a step still standing that has points to lose, its time against the judge's own
// version of the step (measure/step_band.h). A step that breaks a rule loses every item that grades it
// (steps/step_verdicts.h).
#include <algorithm>

#include "measure/measure_item.h"
#include "measure/step_band.h"
#include "pipeline/grading.h"
#include "steps/step_code.h"
#include "steps/step_rules.h"
#include "steps/step_verdicts.h"

namespace grader::pipeline {

namespace {

// "m=256, n=1024, k=1024"
std::string sizes_text(const Variables& params) {
  std::string text;
  for (const auto& [name, value] : params) text += (text.empty() ? "" : ", ") + name + "=" + fixed(value, 0);
  return text;
}

}  // namespace

void Grading::check_steps() {
  if (spec_.steps.empty()) return;
  finish_inspect();
  progress("steps", "steps: reading what each step compiled to");
  std::vector<StepFinding> findings;
  // The inspect stage read the submission's objects once, after the build (pipeline/inspect_stage.cpp); the steps'
  // rules need them whatever that stage was asked to show.
  CodeFacts read_here;
  if (!facts_.read()) read_here = read_code_facts(env_, spec_, candidate_build_.student_objects, lab_.gpu_arch);
  const CodeFacts& facts = facts_.read() ? facts_ : read_here;
  if (facts.read())
    findings = check_step_rules(spec_.steps, submission_code(facts));
  else
    report_.warnings.push_back("the steps' code could not be read (" + facts.unavailable + "): only their timing was "
                               "checked");

  // The points each step still holds: a step with none (wrong, not run, or already caught) is not timed.
  auto points_at_stake = [&](const std::string& variant) {
    double points = 0;
    for (const auto& test : report_.tests)
      if (item_grades_variant(spec_, test, variant)) points += test.score;
    return points;
  };
  auto caught = [&](const std::string& variant) {
    return std::any_of(findings.begin(), findings.end(), [&](const StepFinding& f) { return f.variant == variant; });
  };
  const bool timing_allowed = !options_.quick && options_.sanitize.empty() && report_.verdict != Verdict::not_run;
  LabSpec band_spec = spec_;  // the lab as the band times it: its timing trimmed (measure/step_band.h)
  band_spec.timing = step_band_timing(spec_.timing);
  for (const auto& step : spec_.steps.steps) {
    if (step.judge.empty() || !timing_allowed || caught(step.variant) || points_at_stake(step.variant) <= 0) continue;
    begin_timing();
    if (candidate_) {  // a fresh candidate, as for every measurement
      candidate_->quit();
      harvest_output(*candidate_);
      candidate_.reset();
    }
    const PerformanceItem item = step_band_item(step);
    MeasureInputs in;
    in.params = case_params(item.params, machine_);
    in.baseline_params = in.params;
    in.tolerance = spec_.tolerance;
    in.seeds.inputs = derive_seed(options_.seed, "step/" + step.variant);
    in.seeds.fresh = derive_seed(options_.seed, "step-fresh/" + step.variant);
    in.seeds.checks = derive_seed(options_.seed, "step-check/" + step.variant);
    MeasureContext context{band_spec,
                           machine_,
                           calibration_,
                           // Its stages are the steps' on the grading's clock: the time the bands add shows as one.
                           [this](const char*, const std::string& line) { progress("steps", line); },
                           [this]() -> Worker& { return judge(); },
                           [this] { judge_.reset(); },
                           [this]() -> Worker& { return candidate(); },
                           [this] { retire_candidate_if_dead(); },
                           [this](bool on_candidate) {
                             return start_worker(on_candidate ? candidate_build_.executable : lab_.judge,
                                                 on_candidate ? "baseline-candidate" : "baseline-judge");
                           },
                           [](const PerformanceItem&, const Measurement&) { return false; }};  // a band earns nothing: no cross-check
    TestResult timed;
    progress("steps", "steps: timing " + step.variant + " against the judge's " + step.judge);
    const std::string sizes = sizes_text(in.params);
    if (!measure_item(item, in, context, timed)) {
      if (info(timed.verdict).student_fault)
        findings.push_back({step.variant, "timed against the judge's own " + step.judge + " (" + sizes + "), " +
                                              step.function + " failed: " + timed.details});
      else
        report_.warnings.push_back("the " + step.variant + " step could not be timed against the judge's " + step.judge +
                                   ": " + timed.details);
      continue;
    }
    if (std::string what = outside_band(step, *timed.measurement, sizes); !what.empty())
      findings.push_back({step.variant, std::move(what)});
    else
      note_step(spec_, step.variant, band_note(step, *timed.measurement, sizes), report_);
  }
  apply_step_findings(spec_, findings, report_);
}

}  // namespace grader::pipeline
