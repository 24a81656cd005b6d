// spec_steps.cpp: lab.toml's [steps] (docs/lab-toml.md, "Steps"): what each step of a stepwise lab is. Checked
// where it is written: a step must name a variant the lab grades and a function, a fact must be one the rules can
// read, and a timing band needs the judge's variant, the sizes and its upper edge, so a lab's mistake is never a
// student's verdict.
#include <algorithm>
#include <map>

#include "spec/spec_items.h"

namespace grader {

const std::vector<StepFact>& known_step_facts() {
  static const std::vector<StepFact> facts{
      {"shared_memory", "uses shared memory"},
      {"barriers", "synchronises its block (__syncthreads)"},
      {"shuffles", "uses warp shuffles (__shfl_*_sync)"},
      {"atomics", "uses atomic operations on global memory"},
      {"vector_loads", "loads global memory in vectors (float2, float4)"},
      {"tensor_core", "uses tensor-core instructions (mma, wmma)"},
      {"tf32", "converts values to TF32"},
  };
  return facts;
}

bool is_step_fact(std::string_view name) {
  const auto& facts = known_step_facts();
  return std::any_of(facts.begin(), facts.end(), [&](const StepFact& fact) { return fact.name == name; });
}

const StepRule* StepsSpec::find(std::string_view variant) const {
  for (const auto& step : steps)
    if (step.variant == variant) return &step;
  return nullptr;
}

namespace {

std::vector<std::string> read_facts(const SpecField& field, const LabSpec& spec) {
  if (!spec.gpu) field.fail("facts are read from a GPU lab's kernels; a CPU lab's steps have no facts to require");
  std::vector<std::string> facts = field.as_unique_strings();
  for (const auto& element : field.as_array()) {
    const std::string name = element.as_string();
    if (is_step_fact(name)) continue;
    std::string known;
    for (const auto& fact : known_step_facts()) known += (known.empty() ? "" : ", ") + std::string(fact.name);
    element.fail("'" + name + "' is not a fact the grader reads; known facts: " + known);
  }
  return facts;
}

bool lab_grades_variant(const LabSpec& spec, const std::string& variant) {
  for (const auto& item : spec.correctness)
    if (std::find(item.variants.begin(), item.variants.end(), variant) != item.variants.end()) return true;
  for (const auto& item : spec.performance)
    if (item.variant == variant) return true;
  return false;
}

StepRule read_step(const SpecTable& table, const LabSpec& spec) {
  StepRule step;
  const SourcePosition where = table.where();
  step.line = where.line;
  step.column = where.column;
  const SpecField variant = table.required("variant");
  step.variant = variant.as_nonempty_string();
  if (!lab_grades_variant(spec, step.variant))
    variant.fail("no [[correctness]] or [[performance]] item grades the variant '" + step.variant + "'");
  step.function = table.required("function").as_nonempty_string();
  if (auto field = table.optional("requires")) step.requires_facts = read_facts(*field, spec);
  if (auto field = table.optional("forbids")) step.forbids_facts = read_facts(*field, spec);
  for (const auto& fact : step.requires_facts)
    if (std::find(step.forbids_facts.begin(), step.forbids_facts.end(), fact) != step.forbids_facts.end())
      table.fail("the step both requires and forbids '" + fact + "'");

  // The timing band comes whole: the judge's step, the sizes it is timed at, and how much faster it may run.
  const auto judge = table.optional("judge");
  const auto params = table.optional("params");
  const auto max_speedup = table.optional("max_speedup");
  if (judge || params || max_speedup) {
    if (!judge || !params || !max_speedup)
      table.fail("a step's timing band needs 'judge', 'params' and 'max_speedup' together");
    step.judge = judge->as_nonempty_string();
    step.params = read_benchmark_params(*params);
    // Below 1 the band would refuse a student who merely matches the judge's own version of the step.
    step.max_speedup = max_speedup->as_number_in(1, 1000);
    if (step.max_speedup <= 1)
      max_speedup->fail("'max_speedup' must be above 1: a student who writes the step as well as the judge, or better, "
                        "keeps its points");
  }
  return step;
}

}  // namespace

void read_steps_section(const SpecTable& root, LabSpec& spec) {
  const auto field = root.optional("steps");
  if (!field) return;
  const SpecTable steps = field->as_table();
  const SpecField best = steps.required("best");
  spec.steps.best = best.as_nonempty_string();
  if (auto forbid = steps.optional("forbid")) spec.steps.forbid = read_facts(*forbid, spec);
  const SpecField list = steps.required("step");
  std::map<std::string, int> variants, functions;  // name -> line, to point at both uses
  for (const SpecTable& table : list.as_array_of_tables()) {
    StepRule step = read_step(table, spec);
    if (auto [first, fresh] = variants.emplace(step.variant, step.line); !fresh)
      table.fail("the variant '" + step.variant + "' is already a step (line " + std::to_string(first->second) + ")");
    if (auto [first, fresh] = functions.emplace(step.function, step.line); !fresh)
      table.fail("the function '" + step.function + "' is already a step's (line " + std::to_string(first->second) + ")");
    if (step.function == spec.steps.best)
      table.fail("'" + step.function + "' is the best function ([steps] best), which every step is checked against; "
                 "it cannot be a step itself");
    spec.steps.steps.push_back(std::move(step));
  }
  if (spec.steps.steps.empty()) list.fail("[steps] must declare at least one [[steps.step]], or be left out");
}

}  // namespace grader
