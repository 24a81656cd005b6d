// inspect_stage.cpp: the inspect stage for grade.cpp's pipeline (docs/design.md, "Steps, facts and counters"). After
// the build, the submission's objects are read (inspect/code_facts.h), and the reference's from the cache; after
// grading, every performance item gets its variant's facts beside the reference's, and a hint chosen from them.
// Facts never change a score here: a tool that is missing leaves the report saying so, and grading goes on.
#include <fstream>

#include "inspect/fact_list.h"
#include "inspect/look.h"
#include "pipeline/grading.h"
#include "score/next_step.h"

namespace grader::pipeline {

namespace {

// The submission's staged files, line by line, for the hot loop's source lines (inspect/look.h). Staging capped
// their size; a file that cannot be read is left out and its lines are shown without their text.
SourceFiles read_staged_sources(const std::vector<fs::path>& staged) {
  SourceFiles files;
  for (const auto& path : staged) {
    std::ifstream in(path);
    if (!in) continue;
    std::vector<std::string>& lines = files[path.filename().string()];
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  return files;
}

}  // namespace

void Grading::inspect_code() {
  progress("inspect", "reading what the compiled code does");
  facts_ = read_code_facts(env_, spec_, candidate_build_.student_objects, lab_.gpu_arch);
  if (!facts_.read()) {
    report_.facts_unavailable = facts_.unavailable;
    return;
  }
  reference_facts_ = reference_code_facts(env_, spec_, lab_);
}

void Grading::attach_facts() {
  if (!facts_.read()) return;
  const SourceFiles sources = read_staged_sources(staged_sources_);
  std::size_t index = spec_.correctness.size();
  for (const auto& item : spec_.performance) {
    if (item.visibility != Visibility::visible && !options_.include_hidden) continue;
    TestResult& test = report_.tests[index++];
    if (!selected(item.name)) continue;  // --only left it out
    const std::optional<VariantFacts> yours = variant_facts(facts_, item.variant);
    const std::optional<VariantFacts> reference = variant_facts(reference_facts_, item.variant);
    std::string note;
    if (!yours) note = "no function of the submission could be told apart as variant '" + item.variant + "'";
    else if (!reference_facts_.read()) note = "the reference's facts: " + reference_facts_.unavailable;
    const auto counted = counters_.find(counted_call_key(item));
    const Variables no_counters;
    const Variables& counter_facts = counted == counters_.end() ? no_counters : counted->second.facts;
    test.look = make_look(yours, reference, note, counter_facts, {}, sources);
    if (counted != counters_.end()) test.look->counters = counted->second.words;

    // The hint is chosen again with the facts in scope: a hint's `when` reads them, and `reference_<fact>` the
    // reference's. Where the item was timed, or could not be (no GPU here), but not where it failed.
    const bool timed = test.measurement.has_value();
    if (!timed && report_.verdict != Verdict::not_run) continue;
    Variables scope = scope_of(item);
    if (yours)
      for (const auto& [name, value] : fact_variables(*yours)) scope[name] = value;
    for (const auto& [name, value] : counter_facts) scope[name] = value;
    if (reference)
      for (const auto& [name, value] : fact_variables(*reference)) scope[std::string(reference_prefix) + name] = value;
    test.next_step = next_step(item, scope, timed ? &*test.measurement : nullptr);
  }
}

}  // namespace grader::pipeline
