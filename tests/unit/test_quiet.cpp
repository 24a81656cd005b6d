// test_quiet.cpp: the quiet-sides watch (grader/src/measure/quiet.h) and fresh call names (measure/fresh.h). A
// process that burns CPU while "the other side" is timed is named; an idle one is not; and no call index is handed
// out twice.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "measure/fresh.h"
#include "measure/quiet.h"

namespace {

// A child that burns a CPU until killed, or sleeps until killed.
pid_t child(bool burn) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    volatile double sink = 0;
    for (;;) {
      if (burn) sink = sink * 0.5 + 1;
      else ::pause();
    }
  }
  return pid;
}

void stop(pid_t pid) {
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

}  // namespace

TEST_CASE("a process that burns CPU while the other side is timed is named; an idle one is not") {
  const pid_t busy = child(true), idle = child(false);
  grader::QuietWatch watch;
  watch.before({{busy, "busy process"}, {idle, "idle process"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  watch.after(0.3);
  const std::string verdict = watch.verdict();
  stop(busy);
  stop(idle);
  CHECK(verdict.find("busy process") != std::string::npos);
  CHECK(verdict.find("idle process") == std::string::npos);
}

TEST_CASE("idle processes pass") {
  const pid_t idle = child(false);
  grader::QuietWatch watch;
  for (int round = 0; round < 5; ++round) {
    watch.before({{idle, "idle process"}});
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    watch.after(0.02);
  }
  stop(idle);
  CHECK(watch.verdict().empty());
}

TEST_CASE("fresh call names never repeat an index, and replay names the index asked for") {
  grader::FreshCalls fresh(42);
  CHECK(fresh.next("v", 3) == "v@42:1");
  CHECK(fresh.last_call() == 3);
  CHECK(fresh.next("w", 2) == "w@42:4");
  CHECK(fresh.last_call() == 5);
  CHECK(fresh.replay("v", 5) == "v@42:5");
}
