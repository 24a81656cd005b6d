// interference.h: whether work on this machine's other CPUs disturbs a program timed on one of them, measured
// once per machine and kept beside its calibration. A batch (batch/timing_plan.h) runs a class's builds and
// correctness runs beside a timing, or times several students at once on disjoint CPUs, only where this says the
// timed program did not slow down. Memory bandwidth, the last-level cache, a hyperthread sibling's core and the
// turbo budget are shared, so whether it is safe is a property of the machine that no count of cores tells.
//
// grader/calibrate/interference_probe.cpp, pinned to the first CPU, is timed alone and with a load on the others:
//   builds:  the compiler in a loop on every other CPU (a classmate's build);
//   timings: the probe itself in a loop on the other CPUs (a classmate's correctness run, which streams memory as
//            lab 1's and lab 4's cases do, or a second timed student): on all of them, and on 1, 3, 7, ... of them,
//            for 2, 4, 8, ... timing slots.
// Each in `rounds` interleaved rounds; a load's slowdown is the worst of the probe's three kernels (memory
// stream, cache-resident, FMA), by the medians over the rounds.
//
//   std::optional<Interference> measured = load_interference(env);
//   if (!measured) measured = run_interference_calibration(env);   // seconds: 3 rounds of every load
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/environment.h"

namespace grader {

struct InterferenceLoad {
  std::string kind;        // "builds" or "timings"
  int cpus = 0;            // how many of the other CPUs carried it
  double slowdown = 0;     // of the timed probe, its worst kernel: 0.084 is 8.4% slower than alone
  std::string worst;       // that kernel: "stream", "cache" or "fma"
};

struct Interference {
  std::string machine_id;
  std::vector<int> cpus;   // the CPUs, in the order timing slots take them: distinct physical cores first
  int rounds = 0;
  double noise = 0;        // the probe alone: the largest spread (max - min) / median of a kernel over the rounds
  double stream_gbps = 0;  // the probe alone, medians: what the figures are relative to
  double cache_gbps = 0;
  double fma_gflops = 0;
  std::vector<InterferenceLoad> loads;
  std::string measured_at;  // UTC

  // The load of `kind` on `cpus` others, or null when it was not measured.
  const InterferenceLoad* find(const std::string& kind, int cpus) const;
};

std::filesystem::path interference_path(const Environment& env);
// nullopt: none for this machine, or a damaged one (measure again).
std::optional<Interference> load_interference(const Environment& env);
// Measures and stores it. Throws std::runtime_error if the probe cannot be built or run.
Interference run_interference_calibration(const Environment& env, int rounds = 3);

// The usable CPUs (core/cpus.h), those on distinct physical cores first (by sysfs's thread_siblings_list), so
// two timing slots are never a core's two hyperthreads while there are cores without one.
std::vector<int> cpus_by_core();

}  // namespace grader
