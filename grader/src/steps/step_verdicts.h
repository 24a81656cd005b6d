// step_verdicts.h: a step that is not what its name says loses every item that grades it (lab.toml [steps]):
// correctness items that list its variant and timed items of its variant take the verdict not_this_step, no
// points, and details that say what was seen. Applied once every item is graded, so each format shows it.
#pragma once

#include <vector>

#include "report/report.h"
#include "spec/lab_spec.h"
#include "steps/step_rules.h"

namespace grader {

// Whether the item `test` reports (a correctness or performance item of `spec`) grades the step of `variant`.
bool item_grades_variant(const LabSpec& spec, const TestResult& test, const std::string& variant);

// Adds `note` (what the step's timing band measured) to the details of every item that grades the step of
// `variant`, so a student and the lab's author see how near the edge it ran.
void note_step(const LabSpec& spec, const std::string& variant, const std::string& note, Report& report);

void apply_step_findings(const LabSpec& spec, const std::vector<StepFinding>& findings, Report& report);

}  // namespace grader
