// test_profiled_turns.cpp: the order of the counters stage's profiled runs (pipeline/profiled_turns.h), played with
// steps that only log what happened: each call is counted alone (every worker before it gone, none after it spoken
// to), while the seconds beside it overlap (the next worker started before this call is set up; this worker leaving
// while the next is set up), and every call gets every step.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pipeline/profiled_turns.h"

using grader::pipeline::ProfiledTurnSteps;
using grader::pipeline::take_profiled_turns;

namespace {

// Each worker's life as the steps saw it, and the steps in the order they came ("start 0", "prepare 0", ...).
struct Played {
  enum State { unborn, started, prepared, counted, leaving, gone };
  std::vector<State> workers;
  std::vector<std::string> log;
  std::vector<std::string> broken;  // promises seen broken, with the step that saw it

  explicit Played(std::size_t calls) : workers(calls, unborn) {}

  ProfiledTurnSteps steps() {
    const auto step = [this](const char* name, State from, State to) {
      return [this, name, from, to](std::size_t i) {
        log.push_back(std::string(name) + " " + std::to_string(i));
        if (i >= workers.size() || workers[i] != from) broken.push_back(log.back() + ": out of order");
        if (to == counted)
          for (std::size_t j = 0; j < workers.size(); ++j) {
            const std::string worker = log.back() + ": worker " + std::to_string(j);
            if (j < i && workers[j] != gone) broken.push_back(worker + " is not gone");
            if (j > i && workers[j] > started) broken.push_back(worker + " was spoken to");
          }
        if (i < workers.size()) workers[i] = to;
      };
    };
    return {step("start", unborn, started), step("prepare", started, prepared), step("wait_gone", leaving, gone),
            step("count", prepared, counted), step("leave", counted, leaving)};
  }

  std::size_t at(const std::string& entry) const {
    for (std::size_t k = 0; k < log.size(); ++k)
      if (log[k] == entry) return k;
    FAIL("no step " << entry);
    return 0;
  }
};

}  // namespace

TEST_CASE("five calls: each counted alone, the workers beside it starting and leaving around it") {
  Played played(5);
  take_profiled_turns(5, played.steps());
  CHECK(played.broken == std::vector<std::string>{});
  for (std::size_t i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(played.workers[i] == Played::gone);  // every call got every step, its report read
    const std::string n = std::to_string(i);
    if (i + 1 < 5) {
      const std::string next = std::to_string(i + 1);
      // ncu's start for the next call overlaps this call's setup and run; this worker's leaving, the next setup.
      CHECK(played.at("start " + next) < played.at("prepare " + n));
      CHECK(played.at("leave " + n) < played.at("prepare " + next));
      CHECK(played.at("prepare " + next) < played.at("wait_gone " + n));
      CHECK(played.at("wait_gone " + n) < played.at("count " + next));
    }
  }
  CHECK(played.log.back() == "wait_gone 4");  // the last report is read before the stage ends
}

TEST_CASE("one call, and none") {
  Played one(1);
  take_profiled_turns(1, one.steps());
  CHECK(one.log == std::vector<std::string>{"start 0", "prepare 0", "count 0", "leave 0", "wait_gone 0"});
  CHECK(one.broken == std::vector<std::string>{});
  Played none(0);
  take_profiled_turns(0, none.steps());
  CHECK(none.log.empty());
}

TEST_CASE("the order is checked: a schedule that counts beside a worker still there is caught") {
  // The same steps, played in an order the stage must never take: call 1 counted before call 0's worker has gone.
  Played played(2);
  ProfiledTurnSteps steps = played.steps();
  steps.start(0);
  steps.start(1);
  steps.prepare(0);
  steps.count(0);
  steps.leave(0);
  steps.prepare(1);
  steps.count(1);
  REQUIRE(played.broken.size() == 1);
  CHECK(played.broken[0] == "count 1: worker 0 is not gone");
}
