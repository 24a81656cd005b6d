// selftest_checks.h: two of selftest's checks, kept out of cmd_selftest.cpp: the reference's figure on every
// timed item against that item's tiers, and the lab's mutants (spec/mutants.h), each of which must lose the
// points of the items it names.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/environment.h"
#include "pipeline/grade.h"
#include "report/report.h"
#include "spec/lab_spec.h"
#include "spec/mutants.h"

namespace grader {

// What the reference measured on one timed item, and the tiers it was scored against, evaluated here.
struct TimedFigure {
  std::string item;
  std::string metric;  // "speedup" or "roofline"
  bool measured = false;
  double value = 0;    // the number the tiers read
  std::vector<Measurement::TierMark> tiers;
  double score = 0, max_score = 0;
  std::string verdict;  // the item's verdict label; why it was not measured when `measured` is false
};
std::vector<TimedFigure> timed_figures(const LabSpec& spec, const Report& reference);
// "speedup 2.31x against tiers 1.30x: 0, 1.80x: 20 points -> 20/20"
std::string describe(const TimedFigure& figure);
nlohmann::json to_json(const TimedFigure& figure);

struct MutantVerdict {
  std::string name;
  std::string mistake;
  bool caught = true;
  std::vector<std::string> problems;  // each item that kept points it must lose, or why nothing was graded
  std::vector<std::string> failed;    // "cache blocked: wrong answer (0/20)"
};
// Grades the mutant (correctness only when every item it names is a correctness item) and checks each named
// item lost every point.
MutantVerdict check_mutant(const Environment& env, const LabSpec& spec, const Mutant& mutant, GradeOptions options);
nlohmann::json to_json(const MutantVerdict& verdict);

}  // namespace grader
