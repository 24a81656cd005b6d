// profiled_turns.h: the order of the counters stage's profiled runs (counters_stage.cpp), apart from ncu and the
// workers, so that a test can hold it to its promises. Each call has a worker of its own; around each call the
// seconds of the worker beside it overlap, never the call itself:
//   - the next call's worker is started as this call begins (ncu's start and the program's, CPU work), and is not
//     spoken to before its turn;
//   - this call's worker leaves (ncu writes its report then) while the next one is set up;
//   - a call is counted only once the worker before it is gone: no other process is on the GPU while ncu counts.
//
//   take_profiled_turns(calls, {start, prepare, wait_gone, count, leave});
// Each step is given the call's index and must not throw (a step's failure is its call's, kept for its report);
// every call gets every step, whatever an earlier one did.
#pragma once

#include <cstddef>
#include <functional>

namespace grader::pipeline {

struct ProfiledTurnSteps {
  std::function<void(std::size_t)> start;      // start call i's worker (not yet spoken to)
  std::function<void(std::size_t)> prepare;    // its hello and setup
  std::function<void(std::size_t)> wait_gone;  // wait until call i's worker has left (and have its report read)
  std::function<void(std::size_t)> count;      // its one profiled run
  std::function<void(std::size_t)> leave;      // have it leave, not waiting for it
};

inline void take_profiled_turns(std::size_t calls, const ProfiledTurnSteps& steps) {
  if (calls == 0) return;
  steps.start(0);
  for (std::size_t i = 0; i < calls; ++i) {
    if (i + 1 < calls) steps.start(i + 1);
    steps.prepare(i);
    if (i > 0) steps.wait_gone(i - 1);
    steps.count(i);
    steps.leave(i);
  }
  steps.wait_gone(calls - 1);
}

}  // namespace grader::pipeline
