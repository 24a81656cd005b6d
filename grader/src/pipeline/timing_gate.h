// timing_gate.h: in a class graded on this machine's CPUs, one grading times at a time and nothing else of the
// class runs beside it. Another student's compile or correctness run on the next core takes memory bandwidth,
// cache and turbo headroom from the one being timed (all of a core, for lab3's all-thread items), and the
// grader's busy check cannot see it: those processes are the grader's own. So gradings do their other work as
// `work` (many at once) and their timing as `timing` (alone); a grading waiting to time lets no new work start,
// so a class of many students cannot keep one of them from its turn.
//
//   TimingGate gate;                               // one per batch
//   TimingGate::Work work(gate);                   // a grading's builds and correctness runs
//   ... build, check ...
//   work.release();
//   TimingGate::Timing timing(gate);               // waits for every grading's work in progress to end
#pragma once

#include <condition_variable>
#include <mutex>

namespace grader {

class TimingGate {
 public:
  class Work {
   public:
    explicit Work(TimingGate& gate);
    ~Work() { release(); }
    Work(const Work&) = delete;
    Work& operator=(const Work&) = delete;
    void release();

   private:
    TimingGate* gate_;
  };

  class Timing {
   public:
    explicit Timing(TimingGate& gate);
    ~Timing() { release(); }
    Timing(const Timing&) = delete;
    Timing& operator=(const Timing&) = delete;
    void release();

   private:
    TimingGate* gate_;
  };

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int working_ = 0;          // gradings doing other work now
  int waiting_to_time_ = 0;  // gradings waiting for their turn to time
  bool timing_ = false;      // one grading is timing
};

}  // namespace grader
