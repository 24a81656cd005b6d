// test_quiet.cpp: the quiet-sides watch (grader/src/measure/quiet.h): a process that works while the other side is
// timed is SUSPECT, an idle one is not, and the rounds may end below min_reps only once every watched process has
// been watched long enough that the tolerance is its share of the time, not its few clock ticks.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

#include "measure/quiet.h"

using namespace grader;

namespace {

// A child that sleeps until it is killed: a worker blocked on its pipe.
pid_t idle_child() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (;;) ::pause();
  }
  return pid;
}

// A child that burns a CPU until it is killed: a thread working through the other side's timing.
pid_t busy_child() {
  const pid_t pid = ::fork();
  if (pid == 0) {
    volatile double sink = 0;
    for (;;) sink = sink * 0.999 + 1;
  }
  return pid;
}

void end_child(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

// `watched_seconds` of another side's timing, in one command, while `pid` is watched; the time is the caller's.
void watch_through(QuietWatch& quiet, pid_t pid, double watched_seconds, double real_seconds) {
  quiet.before({{pid, "submission's process"}});
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(real_seconds);
  while (std::chrono::steady_clock::now() < until) ::usleep(1000);
  quiet.after(watched_seconds);
}

}  // namespace

TEST_CASE("watched_long_enough: not before 1.2 s of the other side's timing were watched, and never with nothing watched") {
  QuietWatch nothing;
  CHECK_FALSE(nothing.watched_long_enough());
  const pid_t idle = idle_child();
  QuietWatch quiet;
  // Two pairs of lab 90's 20 ms calls: the ticks are most of the tolerance.
  watch_through(quiet, idle, 0.02, 0);
  watch_through(quiet, idle, 0.02, 0);
  CHECK_FALSE(quiet.watched_long_enough());
  watch_through(quiet, idle, 1.0, 0);
  CHECK_FALSE(quiet.watched_long_enough());
  // Two of lab 4's 5 s yardstick calls, in all.
  watch_through(quiet, idle, 5.0, 0);
  CHECK(quiet.watched_long_enough());
  CHECK(quiet.verdict().empty());
  end_child(idle);
}

TEST_CASE("a process that burns a CPU while the other side is timed is named in the verdict") {
  const pid_t busy = busy_child();
  QuietWatch quiet;
  watch_through(quiet, busy, 0.3, 0.3);
  end_child(busy);
  CHECK(quiet.verdict().find("submission's process used") != std::string::npos);
}
