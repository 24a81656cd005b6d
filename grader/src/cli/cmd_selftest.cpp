// grader selftest [LAB]: proves a lab sound on this machine. The reference must earn full marks; the
// skeleton must build and run and earn no performance points; a reference that clears the top tier by
// less than a safety margin is a warning (noise on another day could cost a correct student points). A reference
// short of full marks only on timed items is graded a second time before that counts as a failure. Every timed
// item's figure is shown against its tiers, and every mutant of the lab must lose the items it names
// (cli/selftest_checks.h).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "build/build.h"
#include "calibrate/calibration.h"
#include "cli/common.h"
#include "cli/selftest_checks.h"
#include "cli/selftest_steps.h"
#include "measure/foreign_load.h"
#include "pipeline/grade.h"
#include "pipeline/grading.h"
#include "report/html_page.h"
#include "report/reference_points.h"
#include "report/writers.h"

namespace grader {

namespace {

constexpr double safety_margin = 1.10;  // the reference should beat the full-marks threshold by 10%

struct SelftestCommand {
  std::optional<std::string> lab;
  std::string format = "text";
  bool verbose = false;
};

struct LabVerdict {
  std::string lab;
  bool ok = true;
  std::vector<std::string> problems;
  std::vector<std::string> warnings;
  double reference_score = 0, skeleton_score = 0, skeleton_performance = 0, max_score = 0;
  double seconds = 0;
  std::vector<TimedFigure> timed;       // the reference's figure on each timed item, against its tiers
  std::vector<MutantVerdict> mutants;   // labs/<lab>/mutants/
  SubstitutionVerdict substitution;     // the best function in every step's place (lab.toml [steps])
};

double performance_points(const Report& report) {
  double points = 0;
  for (const auto& test : report.tests)
    if (test.kind == TestKind::performance) points += test.score;
  return points;
}

// "candidate unrolled 30.12 ms, 26.6 GB/s": one side of a measurement, so that a log read later (a CI's) tells
// which side moved. The duration is written as the report writes it: a 0.1 us call is "0.1 us", not "0.00 ms".
std::string side_figures(const Timing& side) {
  using pipeline::fixed;
  std::string text = side.label + " " + html::duration(side.median);
  if (side.gbps > 0) text += ", " + fixed(side.gbps, 1) + " GB/s";
  else if (side.gflops > 0) text += ", " + fixed(side.gflops, 1) + " GFLOP/s";
  return text;
}

// "item: verdict: details" for every test of the report short of its full points; a timed one also gives the
// medians of both sides.
std::vector<std::string> shortfalls(const Report& report) {
  std::vector<std::string> lines;
  for (const auto& test : report.tests) {
    if (test.score + 1e-9 >= test.max_score) continue;
    std::string line = test.name + ": " + std::string(info(test.verdict).label) + ": " + test.details;
    if (test.measurement && test.measurement->candidate.median > 0)
      line += " (" + side_figures(test.measurement->candidate) + "; " + side_figures(test.measurement->baseline) + ")";
    lines.push_back(line);
  }
  return lines;
}

// "item: points: details" for every performance item of the report that earned points.
std::vector<std::string> performance_earners(const Report& report) {
  std::vector<std::string> lines;
  for (const auto& test : report.tests)
    if (test.kind == TestKind::performance && test.score > 0)
      lines.push_back(test.name + ": " + std::to_string(test.score) + " points: " + test.details);
  return lines;
}

// Before a second grading of a reference that fell short (or of a skeleton that earned points): waits, for at most `max_seconds`, until a second passes
// in which other programs took under a fifth of a core and the machine gives all threads at least four fifths of
// their calibrated FP64 rate (the thresholds a grading's own disturbance check uses). A neighbour that had the
// machine for a minute would otherwise spoil the second grading too. Returns the seconds waited.
double wait_for_quiet(const Environment& env, double max_seconds) {
  Variables machine = pipeline::machine_variables();
  if (const auto calibration = load_calibration(env)) pipeline::add_calibrated_scaling(machine, *calibration);
  const double calibrated = machine.at("cpu_scaling");
  const auto began = std::chrono::steady_clock::now();
  const auto waited = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(); };
  while (waited() < max_seconds) {
    const ForeignLoad load;
    std::this_thread::sleep_for(std::chrono::seconds(1));
    if (load.cores() > noticeable_foreign_cores) continue;
    const std::optional<double> now = calibrated >= 1.25 ? probe_cpu_scaling(env) : std::nullopt;
    if (!now || *now >= short_of_cores_share * calibrated) break;
  }
  return waited();
}

// The items named, graded once more each, alone (`only`: the item and the correctness items it needs), with fresh
// seeds, after waiting for a quiet machine: each result replaces the item's in `report` ("the reference", "the
// skeleton": `what`), whose score is summed again. Only the items whose points are in question are timed again; a
// whole second grading timed every other item too, to decide nothing (lab 4's skeleton: 45 s more, where its one
// item in question takes 15 s; issue 35). An item `only` cannot single out makes it a whole second grading. A wait
// of its own is a warning, and the time counts in the lab's.
void grade_again_when_quiet(const Environment& env, const LabSpec& spec, GradeOptions options,
                            const std::vector<std::string>& items, const std::string& what, Report& report,
                            LabVerdict& verdict) {
  if (const double waited = wait_for_quiet(env, 120); waited >= 2)
    verdict.warnings.push_back("waited " + std::to_string(std::lround(waited)) + " s for a quiet machine before "
                               "grading " + what + " a second time");
  const auto gradable_alone = [&](const std::string& name) {
    return std::any_of(spec.performance.begin(), spec.performance.end(), [&](const auto& item) { return item.name == name; });
  };
  if (items.empty() || !std::all_of(items.begin(), items.end(), gradable_alone)) {
    options.seed = fresh_seed();
    report = grade_submission(env, spec, options);
    verdict.seconds += report.wall_seconds;
    return;
  }
  report.warnings.clear();  // the first grading's are why it is graded again; the second's are the ones that count
  for (const auto& name : items) {
    options.only = name;
    options.seed = fresh_seed();
    Report again = grade_submission(env, spec, options);
    verdict.seconds += again.wall_seconds;
    if (again.verdict != Verdict::passed) {
      report.verdict = again.verdict;
      report.verdict_details = again.verdict_details;
    }
    // Each warning once, and not the one that says only `name` was graded: the rest of the grade is in `report`.
    for (auto& warning : again.warnings)
      if (warning.rfind("--only " + name + ":", 0) != 0 &&
          std::find(report.warnings.begin(), report.warnings.end(), warning) == report.warnings.end())
        report.warnings.push_back(std::move(warning));
    const auto named = [&](const TestResult& test) { return test.name == name; };
    const auto graded = std::find_if(again.tests.begin(), again.tests.end(), named);
    const auto first = std::find_if(report.tests.begin(), report.tests.end(), named);
    if (graded != again.tests.end() && first != report.tests.end()) *first = *graded;
  }
  sum_scores(report);
}

// The names of the report's performance items short of their full points (`earning`: with any points).
std::vector<std::string> performance_items(const Report& report, bool earning) {
  std::vector<std::string> names;
  for (const auto& test : report.tests)
    if (test.kind == TestKind::performance && (earning ? test.score > 0 : test.score + 1e-9 < test.max_score))
      names.push_back(test.name);
  return names;
}

// True when every point the report misses is a timed item that ran correctly but measured below full marks
// (below_threshold, the verdict of every such item: until issue 35 only `passed` counted here, which an item short of
// its points never is, so no reference was ever graded a second time): the only kind of shortfall noise can cause.
bool only_timing_shortfalls(const Report& report) {
  if (report.verdict != Verdict::passed) return false;
  for (const auto& test : report.tests)
    if (test.score + 1e-9 < test.max_score &&
        (test.kind != TestKind::performance || (test.verdict != Verdict::passed && test.verdict != Verdict::below_threshold)))
      return false;
  return true;
}

// The lab's steps cannot be swapped: the best function substituted into every step is caught in each.
void check_steps_swappable(const Environment& env, const LabSpec& spec, const GradeOptions& options, LabVerdict& verdict) {
  if (spec.steps.empty()) return;
  GradeOptions substituted = options;
  substituted.seed = fresh_seed();
  verdict.substitution = check_substitution(env, spec, substituted);
  for (const auto& why : verdict.substitution.problems) {
    verdict.ok = false;
    verdict.problems.push_back(why);
  }
}

LabVerdict selftest_lab(const Environment& env, const LabSpec& spec, bool verbose) {
  LabVerdict verdict;
  verdict.lab = spec.name();
  verdict.max_score = spec.max_score();
  auto problem = [&](const std::string& text) {
    verdict.ok = false;
    verdict.problems.push_back(text);
  };
  // Both trees must offer the files the lab declares, so they build against the same header.
  for (const char* tree : {"reference", "skeletons"})
    for (const auto& file : spec.build.student_files)
      if (!std::filesystem::is_regular_file(env.root / tree / spec.name() / file))
        problem(std::string(tree) + "/" + spec.name() + "/" + file + " is missing");
  if (!verdict.ok) return verdict;
  // Anything else in the two trees is never graded: a helper file the author thinks is compiled, or (in
  // skeletons/, which the student release ships as it is) a file students should not get.
  for (const char* tree : {"reference", "skeletons"}) {
    const auto dir = env.root / tree / spec.name();
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (entry.is_directory()) continue;
      const auto relative = entry.path().lexically_relative(dir).generic_string();
      const auto& declared = spec.build.student_files;
      if (std::find(declared.begin(), declared.end(), relative) != declared.end()) continue;
      verdict.warnings.push_back(std::string(tree) + "/" + spec.name() + "/" + relative +
                                 " is not a student file of this lab ([build] student_files): the grader never "
                                 "reads it" + (std::string(tree) == "skeletons" ? ", and the student release ships it" : ""));
    }
  }

  GradeOptions options;
  options.include_hidden = true;
  // Selftest proves points, which counters never change: no profiled calls (GPU time on every timed item).
  options.counters = false;
  if (verbose) options.progress = [](const std::string& line) { std::cerr << "  " << line << "\n"; };

  options.submission = env.root / "reference" / spec.name();
  options.seed = fresh_seed();
  Report reference = grade_submission(env, spec, options);
  verdict.seconds += reference.wall_seconds;
  // A reference that is correct everywhere but short of full marks on a timed item may have met a moment of
  // noise (another program, a neighbour on a shared host). One more grading tells a noisy moment from a lab
  // whose thresholds are out of reach here: the second must earn full marks, and the first is still named.
  // Items this machine cannot measure (`requires_machine`) leave the report's total: it is the one to reach.
  if (reference.score + 1e-9 < reference.max_score && only_timing_shortfalls(reference)) {
    const std::vector<std::string> first_shortfalls = shortfalls(reference);
    grade_again_when_quiet(env, spec, options, performance_items(reference, false), "the reference", reference, verdict);
    if (reference.score + 1e-9 >= reference.max_score)
      for (const auto& shortfall : first_shortfalls)
        verdict.warnings.push_back("the first grading of the reference fell short, a second earned full marks: " +
                                   shortfall + " (timings here vary: grade on a quieter machine, or widen the margin)");
  }
  verdict.reference_score = reference.score;
  verdict.timed = timed_figures(spec, reference);
  if (reference.verdict == Verdict::not_run) {
    // No GPU here: still prove the skeleton builds against the same header, then report the lab as not run.
    options.submission = env.root / "skeletons" / spec.name();
    const Report skeleton = grade_submission(env, spec, options);
    if (skeleton.verdict != Verdict::not_run)
      problem("the skeleton does not build: " + std::string(info(skeleton.verdict).label) + ": " + skeleton.verdict_details);
    check_steps_swappable(env, spec, options, verdict);  // facts are read without a GPU
    verdict.problems.insert(verdict.problems.begin(), "not run: " + reference.verdict_details);
    verdict.ok = false;
    return verdict;
  }
  verdict.max_score = reference.max_score;
  // Reports draw the reference on this machine's roofline; a selftest that cannot record it still proves the lab.
  try {
    save_reference_points(env, reference);
  } catch (const std::exception& error) {
    verdict.warnings.push_back("the reference's figures were not recorded for reports: " + std::string(error.what()));
  }
  if (reference.score + 1e-9 < reference.max_score) {
    problem("the reference earns " + std::to_string(reference.score) + " of " + std::to_string(reference.max_score));
    for (const auto& shortfall : shortfalls(reference)) problem("  reference: " + shortfall);
    if (!reference.verdict_details.empty()) problem("  " + reference.verdict_details);
    // A busy machine's warning tells noise from a lab that asks too much.
    for (const auto& warning : reference.warnings) problem("  reference's report: " + warning);
  }
  for (const auto& test : reference.tests) {
    if (!test.measurement || test.measurement->threshold_full <= 0 || test.verdict != Verdict::passed) continue;
    const auto& m = *test.measurement;
    if (m.metric_value < m.threshold_full * safety_margin)
      verdict.warnings.push_back(test.name + ": the reference reaches " + std::to_string(m.metric_value) +
                                 ", within 10% of the full-marks threshold " + std::to_string(m.threshold_full));
  }

  options.submission = env.root / "skeletons" / spec.name();
  options.seed = fresh_seed();
  Report skeleton = grade_submission(env, spec, options);
  verdict.seconds += skeleton.wall_seconds;
  // The same rule as the reference's, the other way round: a skeleton that earns performance points may have met
  // a moment of noise (an interval reaching over the first tier is scored at its upper end, to the student's
  // benefit). A second grading tells that from tiers a skeleton really reaches; the first is still named.
  const bool skeleton_again = skeleton.verdict == Verdict::passed && performance_points(skeleton) > 0;
  if (skeleton_again) {
    const std::vector<std::string> first_earners = performance_earners(skeleton);
    grade_again_when_quiet(env, spec, options, performance_items(skeleton, true), "the skeleton", skeleton, verdict);
    if (skeleton.verdict == Verdict::passed && performance_points(skeleton) <= 0)
      for (const auto& earner : first_earners)
        verdict.warnings.push_back("the first grading of the skeleton earned performance points, a second none: " +
                                   earner + " (timings here vary: grade on a quieter machine, or move the first tier)");
  }
  verdict.skeleton_score = skeleton.score;
  verdict.skeleton_performance = performance_points(skeleton);
  if (skeleton.verdict != Verdict::passed)
    problem("the skeleton does not build and run: " + std::string(info(skeleton.verdict).label) + ": " + skeleton.verdict_details);
  if (verdict.skeleton_performance > 0) {
    problem("the skeleton earns " + std::to_string(verdict.skeleton_performance) + " performance points" +
            (skeleton_again ? " (in two gradings)" : ""));
    for (const auto& earner : performance_earners(skeleton)) problem("  skeleton: " + earner);
    for (const auto& warning : skeleton.warnings) problem("  skeleton's report: " + warning);
  }

  // Each known mistake of the lesson must cost the items it names: the cases are shown to catch it.
  try {
    for (const auto& mutant : load_mutants(spec)) {
      options.seed = fresh_seed();
      MutantVerdict mutant_verdict = check_mutant(env, spec, mutant, options);
      for (const auto& why : mutant_verdict.problems)
        problem("mutant " + mutant.name + " (" + mutant.mistake + ") is not caught: " + why);
      verdict.mutants.push_back(std::move(mutant_verdict));
    }
  } catch (const SpecError& error) {
    problem(error.what());
  }
  check_steps_swappable(env, spec, options, verdict);
  return verdict;
}

void run_selftest(const SelftestCommand& command) {
  const Environment env = current_environment();
  std::vector<LabVerdict> verdicts;
  for (const auto& spec : load_labs(env, command.lab)) {
    if (command.format == "text") std::fprintf(stderr, "selftest %s...\n", spec.name().c_str());
    try {
      verdicts.push_back(selftest_lab(env, spec, command.verbose));
    } catch (const MissingToolchain& missing) {
      throw CommandFailure(ExitCode::environment, missing.what());
    }
  }
  bool all_ok = true;
  nlohmann::json labs = nlohmann::json::array();
  for (const auto& v : verdicts) {
    all_ok = all_ok && v.ok;
    if (command.format == "json") {
      labs.push_back({{"lab", v.lab}, {"ok", v.ok}, {"problems", v.problems}, {"warnings", v.warnings},
                      {"reference_score", v.reference_score}, {"skeleton_score", v.skeleton_score},
                      {"skeleton_performance_points", v.skeleton_performance}, {"max_score", v.max_score},
                      {"seconds", v.seconds}});
      for (const auto& figure : v.timed) labs.back()["timed"].push_back(to_json(figure));
      for (const auto& mutant : v.mutants) labs.back()["mutants"].push_back(to_json(mutant));
      if (v.timed.empty()) labs.back()["timed"] = nlohmann::json::array();
      if (v.mutants.empty()) labs.back()["mutants"] = nlohmann::json::array();
      labs.back()["substitution"] = to_json(v.substitution);
      continue;
    }
    // Not run (no GPU) and nothing else wrong: skipped, not failed.
    const bool skipped = v.problems.size() == 1 && v.problems.front().rfind("not run:", 0) == 0;
    if (skipped) {
      std::printf("%-20s skip  %s\n", v.lab.c_str(), v.problems.front().c_str());
      for (const auto& caught : v.substitution.caught) std::printf("    best substituted into step %s\n", caught.c_str());
      continue;
    }
    std::printf("%-20s %s  reference %.1f/%.0f  skeleton %.1f/%.0f (%.1f performance points)  %.1f s\n", v.lab.c_str(),
                v.ok ? "ok  " : "FAIL", v.reference_score, v.max_score, v.skeleton_score, v.max_score,
                v.skeleton_performance, v.seconds);
    for (const auto& figure : v.timed) std::printf("    timed: %s\n", describe(figure).c_str());
    for (const auto& mutant : v.mutants)
      if (mutant.caught) {
        std::string failed;
        for (const auto& line : mutant.failed) failed += (failed.empty() ? "" : "; ") + line;
        std::printf("    mutant %s: caught (%s)\n", mutant.name.c_str(), failed.c_str());
      }
    if (v.substitution.checked)
      std::printf("    substitution (the best function in every step): %.1f/%.0f, %zu of %zu steps caught\n",
                  v.substitution.score, v.substitution.max_score, v.substitution.caught.size(), v.substitution.steps);
    for (const auto& caught : v.substitution.caught) std::printf("    best substituted into step %s\n", caught.c_str());
    for (const auto& p : v.problems) std::printf("    problem: %s\n", p.c_str());
    for (const auto& w : v.warnings) std::printf("    warning: %s\n", w.c_str());
  }
  if (command.format == "json") std::cout << json_text(nlohmann::json{{"ok", all_ok}, {"labs", labs}});
  bool any_failed = false, any_not_run = false;
  for (const auto& v : verdicts) {
    if (v.ok) continue;
    const bool skipped = v.problems.size() == 1 && v.problems.front().rfind("not run:", 0) == 0;
    (skipped ? any_not_run : any_failed) = true;
  }
  command_result() = any_failed ? ExitCode::graded_failures : any_not_run ? ExitCode::not_run : ExitCode::all_passed;
}

}  // namespace

void setup_selftest(CLI::App& app) {
  auto command = std::make_shared<SelftestCommand>();
  auto* selftest = app.add_subcommand("selftest", "prove labs sound here: reference full marks, skeleton no performance points");
  selftest->add_option("lab", command->lab, "one lab (default: all)");
  selftest->add_option("--format,-f", command->format, "text or json")->check(CLI::IsMember({"text", "json"}));
  selftest->add_flag("--verbose,-v", command->verbose, "show each stage as it runs");
  selftest->callback([command] { run_selftest(*command); });
}

}  // namespace grader
