// timing_plan.h: how a batch of a CPU lab shares this machine's cores between timing and the rest of the class.
// Three modes, the first unless the interference calibration (calibrate/interference.h) shows the others harmless:
//   one at a time:  one student is timed, nothing else of the class runs meanwhile (pipeline/timing_gate.h);
//   work beside:    one or more timing slots, each on a CPU of its own; the class's builds and correctness runs go
//                   on at the same time on the other CPUs, never on a slot's;
//   parallel slots: several students timed at once, each on a CPU of its own, nothing else beside them.
// "Harmless" means the probe timed on one CPU lost no more than `tolerance` with that load on the others, and the
// probe's own rounds alone spread less than that (a calibration too noisy to see a slowdown of that size proves
// nothing). The tolerance is half the lab's own `target_noise`: a disturbance that size is lost in the spread the
// lab already accepts of every timing, and one of 8% (a build beside lab 1 on a 2-vCPU VM) is not.
// Only a lab whose timed programs keep to one CPU can share the machine: no threads (its syscall filter refuses
// them, and refuses moving to another CPU), every item's cpu_threads 1. A lab that times on all threads (lab 3)
// needs every core, one at a time.
//
//   TimingPlan plan = plan_timing(spec, load_interference(env));
//   progress.note("timing: " + plan.mode + ": " + plan.why);
//   TimingGate gate(plan.gate);
#pragma once

#include <optional>
#include <string>

#include "calibrate/interference.h"
#include "pipeline/timing_gate.h"
#include "spec/lab_spec.h"

namespace grader {

struct TimingPlan {
  TimingGate::Plan gate;   // slots, their CPUs, the work CPUs (default: one at a time)
  // Where a grading thread runs between its turns (unpacking an archive, storing a report): the CPUs of no slot.
  // Empty: anywhere (one at a time, or every CPU a slot).
  std::vector<int> between_turns_cpus;
  std::string mode;        // "one at a time", "work beside the timing", "N timing slots"
  std::string why;         // the figures that decided it
  double tolerance = 0;
};

// Empty when the lab's timed programs keep to one CPU; else why its timing needs the whole machine.
std::string needs_whole_machine(const LabSpec& spec);

// `filter_built`: the syscall filter is in this grader (without it a program could move itself onto a classmate's
// CPU). `measured`: this machine's interference calibration, or nullopt.
TimingPlan plan_timing(const LabSpec& spec, const std::optional<Interference>& measured, bool filter_built);

}  // namespace grader
