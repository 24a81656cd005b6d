// timing_plan.cpp: see timing_plan.h.
#include "batch/timing_plan.h"

#include <algorithm>
#include <cstdio>

#include "policy/policy.h"

namespace grader {

namespace {

std::string percent_of(double share) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * share);
  return text;
}

TimingPlan one_at_a_time(std::string why, double tolerance = 0) {
  TimingPlan plan;
  plan.mode = "one at a time";
  plan.why = std::move(why);
  plan.tolerance = tolerance;
  return plan;
}

// "builds on 1 other CPU: 8.4% slower (stream)"
std::string describe_load(const InterferenceLoad& load) {
  return load.kind + " on " + std::to_string(load.cpus) + " other CPU" + (load.cpus == 1 ? "" : "s") + ": " +
         percent_of(load.slowdown) + " slower (" + load.worst + ")";
}

}  // namespace

std::string needs_whole_machine(const LabSpec& spec) {
  if (spec.gpu) return "a CUDA lab (its GPUs are its timing slots: --gpus)";
  if (lab_allows_threads(spec)) return "its programs may start threads, so a timing may use every core";
  for (const auto& item : spec.performance)
    if (!item.cpu_threads.is_constant() || item.cpu_threads.evaluate({}) != 1)
      return "its item \"" + item.name + "\" times on more than one thread";
  return "";
}

TimingPlan plan_timing(const LabSpec& spec, const std::optional<Interference>& measured, bool filter_built) {
  const double tolerance = spec.timing.target_noise / 2;
  if (const std::string whole = needs_whole_machine(spec); !whole.empty()) return one_at_a_time(whole);
  if (!filter_built)
    return one_at_a_time("this grader has no syscall filter (built without libseccomp), so a student's program could "
                         "move itself onto the CPU of a classmate's timing");
  if (!measured)
    return one_at_a_time("nothing was measured to run beside a timing on this machine (`grader calibrate --interference` "
                         "measures it; a batch does so itself on 4 CPUs or more)");
  const Interference& m = *measured;
  const int cpus = static_cast<int>(m.cpus.size());
  if (cpus < 2) return one_at_a_time("one CPU: nothing can run beside a timing");
  if (m.noise > tolerance)
    return one_at_a_time("the interference calibration's probe alone spread " + percent_of(m.noise) + " over its " +
                             std::to_string(m.rounds) + " rounds, more than the " + percent_of(tolerance) +
                             " it would have to resolve (a busy machine: calibrate again when it is quiet)",
                         tolerance);
  auto harmless = [&](const char* kind, int on) {
    const InterferenceLoad* load = m.find(kind, on);
    return load != nullptr && load->slowdown <= tolerance;
  };
  const int others = cpus - 1;
  const bool beside = harmless("builds", others) && harmless("timings", others);
  // The most slots whose timings were measured harmless together (the slot's own CPU and slots - 1 others), and
  // every fewer slots measured harmless too: a pass after a failure is the noise's, not the machine's.
  std::vector<const InterferenceLoad*> timings;
  for (const auto& load : m.loads)
    if (load.kind == "timings") timings.push_back(&load);
  std::sort(timings.begin(), timings.end(), [](auto* a, auto* b) { return a->cpus < b->cpus; });
  int slots = 1;
  for (const InterferenceLoad* load : timings) {
    if (load->slowdown > tolerance) break;
    slots = load->cpus + 1;
  }

  std::string figures;
  for (const auto& load : m.loads) figures += (figures.empty() ? "" : "; ") + describe_load(load);
  figures += " (tolerance " + percent_of(tolerance) + ", half the lab's target_noise; probe alone spread " +
             percent_of(m.noise) + ")";

  TimingPlan plan;
  plan.tolerance = tolerance;
  if (beside) {
    // Every other CPU loaded at once was harmless, so any split is: half the CPUs time, the rest build and check.
    slots = std::max(1, cpus / 2);
    for (int s = 0; s < slots; ++s) plan.gate.slot_cpus.push_back({m.cpus[static_cast<std::size_t>(s)]});
    plan.gate.work_cpus.assign(m.cpus.begin() + slots, m.cpus.end());
    plan.between_turns_cpus = plan.gate.work_cpus;
    plan.mode = slots == 1 ? "work beside the timing" : std::to_string(slots) + " timing slots, work beside them";
    plan.why = figures;
    return plan;
  }
  if (slots > 1) {
    for (int s = 0; s < slots; ++s) plan.gate.slot_cpus.push_back({m.cpus[static_cast<std::size_t>(s)]});
    plan.between_turns_cpus.assign(m.cpus.begin() + slots, m.cpus.end());
    plan.mode = std::to_string(slots) + " timing slots";
    plan.why = "nothing beside them: " + figures;
    return plan;
  }
  return one_at_a_time(figures, tolerance);
}

}  // namespace grader
