// foreign_load.h: how much CPU other programs took while a grading timed something. A timed item compares
// two processes of this grading; anything else running on the machine (another grading, a compile, a
// neighbour on the VM's host stealing cycles) slows them unevenly and can move a score. The load average
// cannot tell: it lags by a minute and counts this grading's own workers. This counts the busy time of the CPUs
// this grader may use (steal included; core/cpus.h) less what this process and everything it started used.
//
//   ForeignLoad load;                 // starts counting
//   ... time an item ...
//   if (load.cores() > 0.2) warn();   // other programs used a fifth of a core on average, or more
#pragma once

#include <chrono>

namespace grader {

// Other programs' load worth naming: a fifth of a core, well above the machine's own housekeeping, well below
// what moved lab3's scores.
constexpr double noticeable_foreign_cores = 0.2;
// A machine whose FP64 probe (probe_cpu_scaling) finds all threads under this share of their calibrated scaling
// is giving them fewer cores than it has: a quiet machine lands within a few percent, one core taken away halves it.
constexpr double short_of_cores_share = 0.8;

class ForeignLoad {
 public:
  ForeignLoad();
  // Cores' worth of CPU used by other programs since construction (0.5: half a core on average).
  double cores() const;

 private:
  double cpus_busy_seconds_ = 0;  // our CPUs' non-idle time, steal included
  double own_seconds_ = 0;           // this process and its descendants
  std::chrono::steady_clock::time_point start_;
};

}  // namespace grader
