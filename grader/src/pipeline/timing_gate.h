// timing_gate.h: in a class graded on this machine's CPUs, who may time, and what may run beside a timing. By
// default one grading times at a time and nothing else of the class runs beside it: another student's compile or
// correctness run on the next core takes memory bandwidth, cache and turbo headroom from the one being timed (all
// of a core, for lab3's all-thread items), and the grader's busy check cannot see it: those processes are the
// grader's own. So gradings do their other work as `work` (many at once) and their timing as `timing`; a grading
// waiting to time lets no new work start, so a class of many students cannot keep one of them from its turn.
//
// Where this machine's interference calibration shows it harmless (batch/timing_plan.h), a Plan widens that:
// several timing slots, each on CPUs of its own, and work beside them on the remaining CPUs. The gate pins the
// calling thread to its turn's CPUs, and every program the grading starts inherits them (a candidate cannot
// leave them: the syscall filter of a lab without threads refuses sched_setaffinity).
//
//   TimingGate gate;                               // one per batch; TimingGate gate(plan.gate) for a wider plan
//   TimingGate::Work work(gate);                   // a grading's builds and correctness runs
//   ... build, check ...
//   work.release();
//   TimingGate::Timing timing(gate);               // waits for a free slot (and, by default, for all work to end)
#pragma once

#include <sched.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <vector>

namespace grader {

class TimingGate {
 public:
  struct Plan {
    // One entry per timing slot, its CPUs. Empty: one slot, on whatever CPUs the grader has, no pinning.
    std::vector<std::vector<int>> slot_cpus;
    // Non-empty: work runs beside the timings, pinned to these CPUs (none of a slot's). Empty: work never runs
    // while anyone times, and is not pinned.
    std::vector<int> work_cpus;
    int slots() const { return slot_cpus.empty() ? 1 : static_cast<int>(slot_cpus.size()); }
    bool work_beside() const { return !work_cpus.empty(); }
  };

  TimingGate() = default;
  explicit TimingGate(Plan plan);
  const Plan& plan() const { return plan_; }

  class Work {
   public:
    explicit Work(TimingGate& gate);
    ~Work() { release(); }
    Work(const Work&) = delete;
    Work& operator=(const Work&) = delete;
    void release();

   private:
    TimingGate* gate_;
    std::optional<cpu_set_t> restore_;  // the thread's CPUs before this turn pinned it
  };

  class Timing {
   public:
    explicit Timing(TimingGate& gate);
    ~Timing() { release(); }
    Timing(const Timing&) = delete;
    Timing& operator=(const Timing&) = delete;
    void release();
    int slot() const { return slot_; }

   private:
    TimingGate* gate_;
    int slot_ = 0;
    std::optional<cpu_set_t> restore_;
  };

 private:
  Plan plan_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int working_ = 0;          // gradings doing other work now
  int waiting_to_time_ = 0;  // gradings waiting for their turn to time
  std::vector<bool> slot_busy_ = std::vector<bool>(1, false);  // per slot: a grading is timing there
  int timing_ = 0;           // slots busy
};

}  // namespace grader
