// steps_spec.h: what each step of a stepwise lab is, as lab.toml's [steps] declares it (docs/lab-toml.md,
// "Steps"). The grader checks every step at every grading (grader/src/steps/): a variant that is not the step its
// name says earns none of its items' points, correctness included (verdict not_this_step).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "spec/expr.h"

namespace grader {

struct Param;  // lab_spec.h; complete wherever a StepRule is made

// A fact of compiled GPU code that a step rule can require or forbid, read from the kernels the step's function
// can launch (grader/src/inspect/). The one list of fact names: the parser accepts these and no other, the rules
// (steps/step_rules.cpp) evaluate each, and docs/lab-toml.md documents each.
struct StepFact {
  std::string_view name;
  std::string_view meaning;  // in the words of a report: "uses shared memory"
};
const std::vector<StepFact>& known_step_facts();
bool is_step_fact(std::string_view name);

// One step: the harness variant graded as it, and what it must be.
struct StepRule {
  std::string variant;   // the harness variant whose items are this step's
  std::string function;  // the student's function implementing it (in a CUDA lab, the host function that launches)
  std::vector<std::string> requires_facts;  // facts the kernels it launches must show (known_step_facts())
  std::vector<std::string> forbids_facts;   // facts they must not show
  // The timing band: the judge's own version of the step (a judge variant), timed in the same rounds on the same
  // inputs (`params`). A step that runs more than `max_speedup` times faster than it is not that step.
  std::string judge;  // empty: no timing rule
  std::vector<Param> params;
  double max_speedup = 0;
  int line = 0, column = 0;  // where the step is written, for messages
};

struct StepsSpec {
  // The function `grader selftest` substitutes into every step (the lab's fastest); empty: the lab has no steps.
  std::string best;
  std::vector<std::string> forbid;  // facts no step may show (lab 7: tensor_core, tf32)
  std::vector<StepRule> steps;

  bool empty() const { return steps.empty(); }
  // The step graded as `variant`, or null.
  const StepRule* find(std::string_view variant) const;
};

}  // namespace grader
