#include "steps/step_rules.h"

#include <algorithm>
#include <functional>

namespace grader {

namespace {

// A function's own name for `name`: the function at its address where `name` is a second name of it.
std::string canonical(const std::string& name, const SubmissionCode& code) {
  const auto found = code.other_names.find(name);
  return found != code.other_names.end() ? found->second : name;
}

// Every function `start` reaches among the submission's own, itself included: through calls, taken addresses, and
// the addresses held in the data they refer to. Each with the first data place on its way ("" when calls and
// code's own addresses alone reach it). Calls to what the submission does not define (the C library, the CUDA
// runtime) end there.
std::map<std::string, std::string> reach_from(const std::string& start, const SubmissionCode& code) {
  std::map<std::string, std::string> reached;  // function -> the data on the way
  std::set<std::string> seen_data;
  std::vector<std::pair<std::string, std::string>> todo{{canonical(start, code), ""}};
  while (!todo.empty()) {
    const auto [name, via] = todo.back();
    todo.pop_back();
    if (const auto place = code.data.find(name); place != code.data.end()) {
      if (!seen_data.insert(name).second) continue;
      for (const auto& target : place->second.points_to)
        todo.emplace_back(canonical(target, code), via.empty() ? place->second.name : via);
      continue;
    }
    const auto found = code.functions.find(name);
    if (found == code.functions.end() || !reached.emplace(name, via).second) continue;
    for (const auto& callee : found->second.calls) todo.emplace_back(canonical(callee, code), via);
    for (const auto& place : found->second.data) todo.emplace_back(place, via);
  }
  return reached;
}

std::set<std::string> reached_from(const std::string& start, const SubmissionCode& code) {
  std::set<std::string> names;
  for (const auto& [name, via] : reach_from(start, code)) names.insert(name);
  return names;
}

// The graded function `name` is, or is part of (a piece the compiler split off it); empty for any other.
std::string graded_one(const std::string& name, const std::vector<std::string>& graded, const SubmissionCode& code) {
  const auto part = code.part_of.find(name);
  for (const auto& candidate : {name, part != code.part_of.end() ? part->second : std::string()})
    for (const auto& other : graded)
      if (!candidate.empty() && canonical(other, code) == candidate) return other;
  return {};
}

// The normalised hashes of everything a function reaches, as a sorted list: two functions whose lists are equal
// run the same code, whatever their names and the helpers' names.
std::vector<std::string> code_of(const std::set<std::string>& reached, const SubmissionCode& code) {
  std::vector<std::string> hashes;
  for (const auto& name : reached) hashes.push_back(code.functions.at(name).hash);
  std::sort(hashes.begin(), hashes.end());
  return hashes;
}

// The same with each function's shape: equal where the code differs only in register names and in the order of
// independent instructions. Empty where any function has no shape (code described by hand).
std::vector<std::string> shape_of(const std::set<std::string>& reached, const SubmissionCode& code) {
  std::vector<std::string> shapes;
  for (const auto& name : reached) {
    if (code.functions.at(name).shape.empty()) return {};
    shapes.push_back(code.functions.at(name).shape);
  }
  std::sort(shapes.begin(), shapes.end());
  return shapes;
}

std::set<std::string> kernels_of(const std::set<std::string>& reached, const SubmissionCode& code) {
  std::set<std::string> kernels;
  for (const auto& name : reached) {
    const auto& launches = code.functions.at(name).launches;
    kernels.insert(launches.begin(), launches.end());
  }
  return kernels;
}

std::string fact_meaning(const std::string& name) {
  for (const auto& fact : known_step_facts())
    if (fact.name == name) return std::string(fact.meaning);
  return name;
}

std::string listed(const std::set<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// What one step's function does wrong, or "" when it keeps every rule.
std::string broken_rule(const StepRule& step, const StepsSpec& steps, const SubmissionCode& code) {
  // The graded functions other than this step's: the best one and every other step's.
  std::vector<std::string> others{steps.best};
  for (const auto& other : steps.steps)
    if (other.function != step.function) others.push_back(other.function);

  if (code.functions.count(step.function) == 0 && code.other_names.count(step.function) == 0)
    return "";  // not defined in the student's objects: nothing to read
  const std::string own = canonical(step.function, code);
  for (const auto& other : others)
    if (canonical(other, code) == own)
      return step.function + " and " + other + " are one function under two names (two symbols at one address: an "
             "alias or an ifunc): a step must run its own code, not another graded function's";

  const std::map<std::string, std::string> reach = reach_from(step.function, code);
  for (const auto& [name, via] : reach) {
    const std::string other = graded_one(name, others, code);
    if (other.empty()) continue;
    if (!via.empty())
      return step.function + " holds the address of " + other + " in its data (" + via + "), so it can reach " +
             (other == steps.best ? "the best step" : "another step") + ": a step must run its own code, not another "
             "graded function's";
    return step.function + " calls " + other + " (directly, through helpers, by taking its address, or because the "
           "compiler merged two functions that compiled to the same code): a step must run its own code, not another "
           "graded function's";
  }

  // A branch through a pointer lands where the pointer says at run time. The only functions a pointer can hold
  // are those whose address the objects take; where a graded function is one of them (its own included: a
  // pointer made from its address by arithmetic), this step can run it.
  for (const auto& [name, via] : reach) {
    const std::string& indirect = code.functions.at(name).indirect;
    if (indirect.empty()) continue;
    std::vector<std::string> graded = others;
    graded.push_back(step.function);
    for (const auto& [taken, where] : code.address_taken) {
      const std::string other = graded_one(canonical(taken, code), graded, code);
      if (other.empty()) continue;
      return step.function + " branches through a pointer (" + indirect +
             (name == own ? "" : " in " + name) + ") and the address of " + other + " is taken " + where +
             ", so it can reach " + (other == steps.best ? "the best step" : other == step.function ? "code beside its own" : "another step") +
             ": a step must call what it runs by name";
    }
  }
  const std::set<std::string> reached = reached_from(step.function, code);

  // The same code as the best function, or as a step declared before this one: of two functions with the same code
  // only one can be what it says, and the earlier keeps its points, in the order first step, best function, the
  // other steps. A skeleton's functions, its best one included, start as copies of its first step, which it is; a
  // first step that is the best function's code instead is caught by its facts or its timing band.
  std::vector<std::string> earlier;
  if (&step != &steps.steps.front()) earlier.push_back(steps.best);
  for (const auto& other : steps.steps) {
    if (other.function == step.function) break;
    earlier.push_back(other.function);
  }
  const std::vector<std::string> own_code = code_of(reached, code);
  const std::vector<std::string> own_shape = shape_of(reached, code);
  const std::set<std::string> own_kernels = kernels_of(reached, code);
  for (const auto& other : earlier) {
    if (code.functions.count(other) == 0) continue;
    const std::set<std::string> other_reached = reached_from(other, code);
    // The best function calling this step is the best function deferring to it (a skeleton's starting point, or a
    // student's best order that is their ikj): their code is the same because it is this step's.
    if (other_reached.count(own) != 0) continue;
    if (own_kernels.empty() && code_of(other_reached, code) == own_code)
      return step.function + " compiles to the same code as " + other + ": a step must be written with its own technique "
             "(where " + other + " is meant to run this step, let it call " + step.function + " rather than repeat it)";
    // Up to registers and the order of independent instructions, against the earlier steps only: a best function
    // left as the skeleton gave it (lab 1's is a copy of its contiguous step, compiled with other registers) is
    // the student's unfinished work, not a step copied from it.
    if (own_kernels.empty() && other != steps.best && !own_shape.empty() && shape_of(other_reached, code) == own_shape)
      return step.function + " compiles to the same code as " + other + " but for its registers or the order of "
             "independent instructions: a step must be written with its own technique (where " + other + " is meant to "
             "run this step, let it call " + step.function + " rather than repeat it)";
    if (!own_kernels.empty() && kernels_of(other_reached, code) == own_kernels)
      return step.function + " launches the same kernels as " + other + " (" + listed(own_kernels) + ")";
  }

  // In GPU code (kernels were read) every step launches kernels of its own: one that launches none the grader can
  // find (a launch through a function pointer, another graded function called the same way) shows nothing of its
  // step, and its facts could not be checked.
  if (!code.kernels.empty() && own_kernels.empty())
    return step.function + " launches no kernel the grader can find (a GPU step launches its own kernels, directly "
           "or through helpers it calls)";

  // Facts, over every kernel the step can launch.
  std::vector<std::string> forbidden = step.forbids_facts;
  forbidden.insert(forbidden.end(), steps.forbid.begin(), steps.forbid.end());
  if (step.requires_facts.empty() && forbidden.empty()) return "";
  if (own_kernels.empty()) {
    if (step.requires_facts.empty()) return "";
    return step.function + " launches no kernel the grader can find, so it cannot show what the step requires (" +
           fact_meaning(step.requires_facts.front()) + ")";
  }
  for (const auto& fact : step.requires_facts) {
    const bool shown = std::any_of(own_kernels.begin(), own_kernels.end(), [&](const std::string& kernel) {
      const auto found = code.kernels.find(kernel);
      return found != code.kernels.end() && found->second.facts.count(fact) != 0;
    });
    if (!shown)
      return "no kernel " + step.function + " launches (" + listed(own_kernels) + ") " + fact_meaning(fact) +
             ", which this step requires";
  }
  for (const auto& fact : forbidden)
    for (const auto& kernel : own_kernels) {
      const auto found = code.kernels.find(kernel);
      if (found != code.kernels.end() && found->second.facts.count(fact) != 0)
        return "the kernel " + kernel + ", launched by " + step.function + ", " + fact_meaning(fact) +
               ", which this step must not";
    }
  return "";
}

}  // namespace

std::vector<StepFinding> check_step_rules(const StepsSpec& steps, const SubmissionCode& code) {
  std::vector<StepFinding> findings;
  for (const auto& step : steps.steps)
    if (std::string what = broken_rule(step, steps, code); !what.empty()) findings.push_back({step.variant, std::move(what)});
  return findings;
}

}  // namespace grader
