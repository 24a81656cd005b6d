// worker.h: the grader's side of the worker protocol (grader/labkit/worker_protocol.md). A Worker is a
// candidate or judge process; every command either succeeds or leaves a named verdict in failure().
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/array.h"
#include "report/verdict.h"
#include "run/answer_storage.h"
#include "run/process.h"
#include "spec/expr.h"

namespace grader {

struct WorkerFailure {
  Verdict verdict = Verdict::passed;
  std::string details;  // "killed by SIGSEGV", "no reply within 5.0 s", "exited with code 0 before reporting"
};

struct TimedCalls {
  std::vector<double> seconds;
  int busy_threads = 0;          // threads still running after the last call returned
  bool outputs_changed = false;  // outputs moved after the last call returned
  std::vector<Array> outputs;  // the last timed call's, when asked for
};

// Whose code a worker's process runs: the lab's alone (the judge), or the submission's as well (a candidate, or a
// baseline timed in the candidate's program). What a process of the second kind writes on the results pipe is the
// submission's word, whatever it claims to be (worker_protocol.md): it can never make a grading the lab's fault.
enum class WorkerCode { lab, submission };

class Worker {
 public:
  // `role` ("candidate", "judge") only labels messages. Throws std::system_error if it cannot start.
  Worker(const LaunchOptions& options, std::string role, WorkerCode code);

  // Each command returns false on failure and leaves the reason in failure(). A worker whose process died
  // (crash, limit, exit) stays dead: alive() is false and every later command fails at once.
  bool hello(std::vector<std::string>& variants, double timeout);
  bool setup(const Variables& params, std::uint64_t seed, const std::vector<Array>& supplied, double timeout);
  // setup() in two halves, so a worker builds its inputs (a gigabyte of them, in lab 8) while the grader has the
  // other worker compute the expected outputs. The reply is read by finish_setup(), or before the next command
  // if no one asked for it: a worker's replies always stay in step with its commands.
  bool start_setup(const Variables& params, std::uint64_t seed, const std::vector<Array>& supplied, double timeout);
  bool finish_setup();
  // Whether the last setup built these generated inputs (no supplied arrays) and succeeded: a measurement on the same
  // parameters and seed sets up nothing again (measure/measure_item.cpp). Every command of a fresh call restores
  // the inputs set up before changing them, so what the calls since did to them does not matter.
  bool holds_inputs(const Variables& params, std::uint64_t seed) const {
    return inputs_ && inputs_->first == params && inputs_->second == seed;
  }
  // `profile`: the call is the one Nsight Compute counts (worker_protocol.md), bracketed by Problem::profile().
  bool run(const std::string& variant, double timeout, std::vector<Array>& outputs, double& seconds, bool profile = false);
  bool inputs(std::vector<Array>& arrays, double timeout);
  bool time(const std::string& variant, int warmup, int reps, bool want_outputs, double timeout, TimedCalls& into);
  // Outputs this worker answered that are no longer needed: their memory holds its next answers (answer_storage.h).
  void keep_storage(std::vector<Array>& arrays) { storage_.keep(arrays); }
  // Polite shutdown; kills it if it has not left `grace` after its reply (a profiler writes its report then).
  void quit(std::chrono::duration<double> grace = std::chrono::seconds(2));

  bool alive() const { return alive_; }
  const WorkerFailure& failure() const { return failure_; }
  ChildProcess& process() { return process_; }
  const std::string& role() const { return role_; }

 private:
  bool send_command(const std::string& line);
  // Reads one reply; `expected` is its type. Errors and protocol violations become failure_.
  bool receive(const std::string& expected, double timeout, std::string& reply_json, std::vector<Array>* arrays);
  bool fail(Verdict verdict, std::string details);
  bool fail_from_ending();
  bool drain_pending_setup();

  ChildProcess process_;
  std::string role_;
  WorkerCode code_;
  ProcessLimits limits_;
  bool alive_ = true;
  WorkerFailure failure_;
  std::optional<double> pending_setup_timeout_;  // a setup was sent and its reply not yet read
  std::optional<std::pair<Variables, std::uint64_t>> inputs_;          // what the last successful setup built
  std::optional<std::pair<Variables, std::uint64_t>> pending_inputs_;  // what the setup awaiting its reply builds
  AnswerStorage storage_;  // buffers of earlier answers, for the next ones
};

// The verdict for a process that ended before answering.
WorkerFailure describe_ending(const Ending& ending, const ProcessLimits& limits);

}  // namespace grader
