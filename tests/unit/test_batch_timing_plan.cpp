// test_batch_timing_plan.cpp: how a batch shares the cores between timing and the rest of the class
// (batch/timing_plan.h), from injected interference calibrations (nothing is timed here), and the timing gate's
// wider plans (pipeline/timing_gate.h): slots, work beside them, and the CPUs each turn pins its thread to.
#include <doctest/doctest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "batch/timing_plan.h"
#include "core/cpus.h"
#include "run/syscall_filter.h"
#include "spec/lab_spec.h"

using namespace grader;
using namespace std::chrono_literals;

namespace {

LabSpec lab(const char* folder) { return load_lab_spec(std::filesystem::path(TESTS_DIR) / ".." / "labs" / folder); }

// This 2-vCPU VM as bench/beside_timing.sh measured it: a compile on the other vCPU slows lab 1's matvec by 8.4%.
Interference two_vcpus() {
  Interference m;
  m.cpus = {0, 1};
  m.rounds = 3;
  m.noise = 0.008;
  m.loads = {{"builds", 1, 0.084, "stream"}, {"timings", 1, 0.21, "stream"}};
  return m;
}

// A 16-core host where nothing on the other cores moves the probe by more than half a percent.
Interference quiet_sixteen() {
  Interference m;
  for (int cpu = 0; cpu < 16; ++cpu) m.cpus.push_back(cpu);
  m.rounds = 3;
  m.noise = 0.005;
  m.loads = {{"builds", 15, 0.004, "cache"}, {"timings", 15, 0.006, "stream"}, {"timings", 1, 0.001, "stream"},
             {"timings", 3, 0.002, "stream"}, {"timings", 7, 0.003, "stream"}};
  return m;
}

std::vector<int> calling_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  pthread_getaffinity_np(pthread_self(), sizeof set, &set);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

bool becomes_true(const std::atomic<bool>& flag) {
  for (int i = 0; i < 200 && !flag; ++i) std::this_thread::sleep_for(10ms);
  return flag;
}

}  // namespace

TEST_CASE("on the 2-vCPU VM a build beside lab 1's timing is measured harmful: one at a time") {
  const TimingPlan plan = plan_timing(lab("lab1-matvec"), two_vcpus(), true);
  CHECK(plan.mode == "one at a time");
  CHECK(plan.gate.slots() == 1);
  CHECK_FALSE(plan.gate.work_beside());
  CHECK(plan.gate.slot_cpus.empty());        // unpinned: the timing keeps the whole machine, as on main
  CHECK(plan.between_turns_cpus.empty());
  CHECK(plan.why.find("8.4%") != std::string::npos);  // the figure that decided it
  CHECK(plan.tolerance == doctest::Approx(0.015));    // half lab 1's target_noise of 3%
}

TEST_CASE("a quiet 16-core host: half the cores time lab 1, the rest build beside them") {
  const TimingPlan plan = plan_timing(lab("lab1-matvec"), quiet_sixteen(), true);
  CHECK(plan.gate.slots() == 8);
  REQUIRE(plan.gate.work_beside());
  CHECK(plan.gate.work_cpus == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
  for (const auto& slot : plan.gate.slot_cpus) CHECK(slot.size() == 1);
  CHECK(plan.between_turns_cpus == plan.gate.work_cpus);  // unpacking, storing: never on a slot's CPU
  CHECK(plan.mode == "8 timing slots, work beside them");
}

TEST_CASE("slots without work beside, up to the first count that disturbed") {
  Interference m = quiet_sixteen();
  m.loads = {{"builds", 15, 0.05, "stream"}, {"timings", 15, 0.09, "stream"}, {"timings", 1, 0.004, "stream"},
             {"timings", 3, 0.03, "stream"}, {"timings", 7, 0.01, "stream"}};  // 8 slots pass by noise after 4 failed
  const TimingPlan plan = plan_timing(lab("lab1-matvec"), m, true);
  CHECK(plan.gate.slots() == 2);
  CHECK_FALSE(plan.gate.work_beside());
  CHECK(plan.mode == "2 timing slots");
  CHECK(plan.between_turns_cpus.size() == 14);  // the grading threads keep off both slots' CPUs
}

TEST_CASE("lab 3 times on every thread: one at a time whatever the calibration says") {
  const TimingPlan plan = plan_timing(lab("lab3-openmp"), quiet_sixteen(), true);
  CHECK(plan.mode == "one at a time");
  CHECK(plan.gate.slots() == 1);
  CHECK_FALSE(plan.gate.work_beside());
  CHECK(plan.why.find("threads") != std::string::npos);
}

TEST_CASE("no proof, no sharing: no calibration, a noisy one, no syscall filter, one CPU") {
  const LabSpec lab1 = lab("lab1-matvec");
  CHECK(plan_timing(lab1, std::nullopt, true).mode == "one at a time");
  CHECK(plan_timing(lab1, quiet_sixteen(), false).mode == "one at a time");
  Interference noisy = quiet_sixteen();
  noisy.noise = 0.04;  // the probe alone moved more than the 1.5% it would have to resolve
  const TimingPlan busy = plan_timing(lab1, noisy, true);
  CHECK(busy.mode == "one at a time");
  CHECK(busy.why.find("spread") != std::string::npos);
  Interference one;
  one.cpus = {0};
  CHECK(plan_timing(lab1, one, true).mode == "one at a time");
}

TEST_CASE("two slots time at once, and work runs beside them on its own CPUs") {
  const std::vector<int> mine = affinity_cpus();
  TimingGate::Plan wide;
  wide.slot_cpus = {{mine.front()}, {mine.front()}};  // CPUs this process has, whatever the machine
  wide.work_cpus = {mine.back()};
  TimingGate gate(wide);
  // In a thread of its own, as a batch's gradings are: the main thread's mask is the process's.
  std::vector<int> timing_saw, process_saw, after_saw, work_saw;
  std::atomic<bool> second_timing{false}, work_started{false};
  std::thread grading([&] {
    TimingGate::Timing first(gate);
    timing_saw = calling_thread_cpus();
    process_saw = affinity_cpus();
    std::thread other([&] {
      TimingGate::Timing second(gate);
      second_timing = true;
    });
    CHECK(becomes_true(second_timing));
    other.join();
    std::thread worker([&] {
      TimingGate::Work work(gate);
      work_saw = calling_thread_cpus();
      work_started = true;
    });
    CHECK(becomes_true(work_started));  // beside a timing
    worker.join();
    first.release();
    after_saw = calling_thread_cpus();
  });
  grading.join();
  CHECK(timing_saw == std::vector<int>{mine.front()});
  CHECK(process_saw == mine);  // the process's CPUs (threads, the machine's id) do not move with a turn
  CHECK(work_saw == std::vector<int>{mine.back()});
  CHECK(after_saw == mine);    // given back
}

TEST_CASE("with more slots but no work beside, a timing still waits for the work in progress") {
  TimingGate::Plan slots;
  slots.slot_cpus = {{affinity_cpus().front()}, {affinity_cpus().front()}};
  TimingGate gate(slots);
  auto work = std::make_unique<TimingGate::Work>(gate);
  std::atomic<bool> timed{false};
  std::thread timer([&] {
    TimingGate::Timing timing(gate);
    timed = true;
  });
  std::this_thread::sleep_for(100ms);
  CHECK_FALSE(timed);
  work.reset();
  CHECK(becomes_true(timed));
  timer.join();
}

TEST_CASE("a program of a lab without threads cannot leave the CPU its turn gave it") {
  if (!syscall_filter_built()) {
    // Then no batch shares the cores: the plan says why.
    CHECK(plan_timing(lab("lab1-matvec"), quiet_sixteen(), syscall_filter_built()).mode == "one at a time");
    return;
  }
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    SyscallFilterOptions options;  // no threads, as lab 1's candidates run
    if (install_syscall_filter(options) != 0) ::_exit(3);
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int cpu = 0; cpu < 8; ++cpu) CPU_SET(cpu, &all);
    const bool refused = ::sched_setaffinity(0, sizeof all, &all) != 0 && errno == EPERM;
    ::_exit(refused ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}
