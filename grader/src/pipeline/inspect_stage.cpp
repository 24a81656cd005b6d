// inspect_stage.cpp: the inspect stage for grade.cpp's pipeline (docs/design.md, "Steps, facts and counters"). After
// the build, the submission's objects are read (inspect/code_facts.h), and the reference's from the cache, on a thread
// of their own beside the correctness items; after grading, every performance item gets its variant's facts beside the
// reference's, and a hint chosen from them.
// Facts never change a score here: a tool that is missing leaves the report saying so, and grading goes on.
#include <chrono>
#include <fstream>
#include <future>
#include <utility>

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
  progress("inspect", "reading what the compiled code does (beside the correctness items)");
  // Its tools (objdump, ptxas -v; the reference's compile on a cache's first grading) read objects and run no code of
  // the submission's, so they run beside the correctness items, which are never timed: on a GPU lab they took about a
  // second of every grading before correctness began (issue 35). Everything timed waits for them (finish_inspect).
  inspecting_ = std::async(std::launch::async, [&env = env_, &spec = spec_, lab = lab_,
                                                objects = candidate_build_.student_objects] {
    CodeFacts facts = read_code_facts(env, spec, objects, lab.gpu_arch);
    CodeFacts reference;
    if (facts.read()) reference = reference_code_facts(env, spec, lab);
    return std::make_pair(std::move(facts), std::move(reference));
  });
}

void Grading::finish_inspect() {
  if (!inspecting_.valid()) return;
  if (inspecting_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    // The wait, and only the wait, is the inspect stage's on the grading's clock; then the stage it interrupted goes on.
    std::string interrupted;
    {
      std::lock_guard lock(shared_mutex_);
      interrupted = stages_.current();
      stages_.enter("inspect");
    }
    inspecting_.wait();
    std::lock_guard lock(shared_mutex_);
    if (!interrupted.empty()) stages_.enter(interrupted);
  }
  auto [facts, reference] = inspecting_.get();
  facts_ = std::move(facts);
  reference_facts_ = std::move(reference);
  if (!facts_.read()) report_.facts_unavailable = facts_.unavailable;
}

void Grading::attach_facts() {
  finish_inspect();
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
