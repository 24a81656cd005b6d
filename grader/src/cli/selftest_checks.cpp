#include "cli/selftest_checks.h"

#include <algorithm>
#include <cstdio>

namespace grader {

namespace {

std::string number(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// A speedup reads "2.31x", a roofline fraction "71%".
std::string metric_text(const std::string& metric, double value) {
  return metric == "speedup" ? number(value, 2) + "x" : number(100 * value, 1) + "%";
}

}  // namespace

std::vector<TimedFigure> timed_figures(const LabSpec& spec, const Report& reference) {
  std::vector<TimedFigure> figures;
  for (const auto& item : spec.performance) {
    const auto test = std::find_if(reference.tests.begin(), reference.tests.end(),
                                   [&](const TestResult& t) { return t.kind == TestKind::performance && t.name == item.name; });
    if (test == reference.tests.end()) continue;
    TimedFigure figure;
    figure.item = item.name;
    figure.metric = std::string(to_string(item.metric));
    figure.score = test->score;
    figure.max_score = test->max_score;
    figure.verdict = std::string(info(test->verdict).label);
    const bool scored = test->verdict == Verdict::passed || test->verdict == Verdict::below_threshold;
    if (test->measurement && scored) {
      figure.measured = true;
      figure.value = test->measurement->metric_value;
      figure.tiers = test->measurement->tiers;
    } else {
      figure.verdict += ": " + test->details;
    }
    figures.push_back(std::move(figure));
  }
  return figures;
}

std::string describe(const TimedFigure& figure) {
  if (!figure.measured) return figure.item + ": not measured (" + figure.verdict + ")";
  std::string tiers;
  for (const auto& tier : figure.tiers)
    tiers += (tiers.empty() ? "" : ", ") + metric_text(figure.metric, tier.at) + ": " + number(tier.points, 0);
  return figure.item + ": " + figure.metric + " " + metric_text(figure.metric, figure.value) + " against tiers " + tiers +
         " points -> " + number(figure.score, 1) + "/" + number(figure.max_score, 0);
}

nlohmann::json to_json(const TimedFigure& figure) {
  nlohmann::json tiers = nlohmann::json::array();
  for (const auto& tier : figure.tiers) tiers.push_back({{"at", tier.at}, {"points", tier.points}});
  nlohmann::json out = {{"item", figure.item}, {"metric", figure.metric}, {"measured", figure.measured},
                        {"tiers", tiers}, {"score", figure.score}, {"max_score", figure.max_score},
                        {"verdict", figure.verdict}};
  out["value"] = figure.measured ? nlohmann::json(figure.value) : nlohmann::json(nullptr);
  return out;
}

MutantVerdict check_mutant(const Environment& env, const LabSpec& spec, const Mutant& mutant, GradeOptions options) {
  MutantVerdict verdict;
  verdict.name = mutant.name;
  verdict.mistake = mutant.mistake;
  options.submission = mutant.submission;
  // Timing is the slow part of a grading: only a mutant that must lose performance points is timed.
  options.quick = std::none_of(mutant.must_fail.begin(), mutant.must_fail.end(), [&](const std::string& name) {
    return std::any_of(spec.performance.begin(), spec.performance.end(), [&](const auto& item) { return item.name == name; });
  });
  const Report report = grade_submission(env, spec, options);
  if (report.verdict != Verdict::passed) {
    // A mutant that does not build or run proves nothing about the cases.
    verdict.caught = false;
    verdict.problems.push_back("it never ran: " + std::string(info(report.verdict).label) + ": " + report.verdict_details);
    return verdict;
  }
  for (const auto& name : mutant.must_fail) {
    const auto test = std::find_if(report.tests.begin(), report.tests.end(), [&](const TestResult& t) { return t.name == name; });
    if (test == report.tests.end()) {
      verdict.caught = false;
      verdict.problems.push_back(name + ": not graded here");
      continue;
    }
    const std::string line = name + ": " + std::string(info(test->verdict).label) + " (" + number(test->score, 1) + "/" +
                             number(test->max_score, 0) + ")";
    if (test->score > 1e-9 || test->max_score <= 0 || test->verdict == Verdict::not_run) {
      verdict.caught = false;
      verdict.problems.push_back(line + ": the mistake must cost every point of this item");
    } else {
      verdict.failed.push_back(line);
    }
  }
  return verdict;
}

nlohmann::json to_json(const MutantVerdict& verdict) {
  return {{"name", verdict.name}, {"mistake", verdict.mistake}, {"caught", verdict.caught},
          {"failed", verdict.failed}, {"problems", verdict.problems}};
}

}  // namespace grader
