// test_timing_gate.cpp: a batch's timing gate (pipeline/timing_gate.h). Work runs beside work, timing beside
// nothing, and a grading waiting to time keeps new work from starting.
#include <doctest/doctest.h>

#include <atomic>
#include <memory>
#include <chrono>
#include <thread>

#include "pipeline/timing_gate.h"

using grader::TimingGate;
using namespace std::chrono_literals;

namespace {

// Polls `flag` for up to two seconds: true once it is set.
bool becomes_true(const std::atomic<bool>& flag) {
  for (int i = 0; i < 200 && !flag; ++i) std::this_thread::sleep_for(10ms);
  return flag;
}

}  // namespace

TEST_CASE("work runs beside work") {
  TimingGate gate;
  TimingGate::Work first(gate);
  std::atomic<bool> second_started{false};
  std::thread other([&] {
    TimingGate::Work second(gate);
    second_started = true;
  });
  CHECK(becomes_true(second_started));
  other.join();
}

TEST_CASE("timing waits for the work in progress, and work waits for the timing") {
  TimingGate gate;
  auto work = std::make_unique<TimingGate::Work>(gate);
  std::atomic<bool> timing_started{false}, timing_may_end{false}, later_work_started{false};
  std::thread timer([&] {
    TimingGate::Timing timing(gate);
    timing_started = true;
    while (!timing_may_end) std::this_thread::sleep_for(5ms);
  });
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(timing_started);  // another grading is still building
  // A grading waiting to time keeps new work out, or a class of many could keep it waiting for ever.
  std::thread late([&] {
    TimingGate::Work later(gate);
    later_work_started = true;
  });
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(later_work_started);
  work.reset();  // the build ends
  CHECK(becomes_true(timing_started));
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(later_work_started);  // nothing runs beside the timing
  timing_may_end = true;
  timer.join();
  CHECK(becomes_true(later_work_started));
  late.join();
}

TEST_CASE("a released turn is given up once") {
  TimingGate gate;
  {
    TimingGate::Work work(gate);
    work.release();
    work.release();  // and again by its destructor
  }
  std::atomic<bool> timed{false};
  std::thread timer([&] {
    TimingGate::Timing timing(gate);
    timed = true;
  });
  CHECK(becomes_true(timed));
  timer.join();
}
