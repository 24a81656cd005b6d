// test_cpu_counters.cpp: counters the grader opens on another process around one call (measure/cpu_counters.h).
// A child spins; the test counts it over a tenth of a second as the grader counts a worker. Where the machine has
// hardware counters, cycles and instructions come back; where it has none (a VM without a virtual PMU, like the
// one this was written on), the software counts do and the reason names the refusal. Where perf_event_open is
// refused altogether (a container's seccomp), nothing is counted and the reason says so: each case asserts.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "measure/cpu_counters.h"

using namespace grader;

namespace {

// A child that computes until killed: what a worker does during its call.
struct SpinningChild {
  pid_t pid = -1;
  SpinningChild() {
    pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      volatile double sum = 0;
      for (;;) sum = sum + 1.0;
    }
  }
  ~SpinningChild() {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
};

}  // namespace

TEST_CASE("the counts over one call of another process are the grader's, read where the machine allows") {
  SpinningChild child;
  CounterSet counts;
  std::string why_not;
  bool called = false;
  const bool answered = count_call(
      child.pid,
      [&] {
        called = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return true;
      },
      counts, why_not);
  CHECK(answered);
  CHECK(called);
  INFO("why not: " << why_not);
  if (counts.threads == 0) {
    // perf_event_open refused even software events: the reason says which refusal.
    CHECK(why_not.find("perf_event_open") != std::string::npos);
    MESSAGE("no counters at all here: " << why_not);
    return;
  }
  CHECK(counts.threads == 1);
  // The child had up to the whole 0.1 s of one core (less on a loaded machine), never more.
  CHECK(counts.cpu_seconds > 0);
  CHECK(counts.cpu_seconds < 1.0);
  if (counts.cycles) {
    CHECK(*counts.cycles > 0);
    REQUIRE(counts.instructions.has_value());
    CHECK(counts.ipc().value() > 0);
  } else {
    // No hardware counters: said so, and nothing made up in their place.
    CHECK_FALSE(why_not.empty());
    CHECK_FALSE(counts.instructions.has_value());
    CHECK_FALSE(counts.ipc().has_value());
    MESSAGE("software counters only here: " << why_not);
  }
}

TEST_CASE("a call that fails is reported as failed, its counts still read") {
  SpinningChild child;
  CounterSet counts;
  std::string why_not;
  CHECK_FALSE(count_call(child.pid, [] { return false; }, counts, why_not));
}

TEST_CASE("a process already gone: nothing counted, and the reason says so") {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  CounterSet counts;
  std::string why_not;
  CHECK(count_call(pid, [] { return true; }, counts, why_not));
  CHECK(counts.threads == 0);
  CHECK_FALSE(why_not.empty());
}

TEST_CASE("each refusal of perf_event_open is named for the report") {
  const std::string no_pmu = counter_refusal(ENOENT, "cycles", 2);
  CHECK(no_pmu.find("no hardware performance counters here") != std::string::npos);
  CHECK(no_pmu.find("cycles: ENOENT") != std::string::npos);
  const std::string paranoid = counter_refusal(EACCES, "cycles", 3);
  CHECK(paranoid.find("perf_event_paranoid is 3") != std::string::npos);
  CHECK(paranoid.find("EACCES") != std::string::npos);
  CHECK(counter_refusal(EPERM, "task-clock", 1).find("seccomp") != std::string::npos);
  CHECK(counter_refusal(EPERM, "task-clock", std::nullopt).find("perf_event_paranoid is unreadable") != std::string::npos);
  CHECK(counter_refusal(ENOSYS, "cycles", 2).find("ENOSYS") != std::string::npos);
  CHECK(counter_refusal(EINVAL, "cycles", 2).find("EINVAL") != std::string::npos);
}
