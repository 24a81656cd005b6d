#include "run/worker.h"

#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run/syscall_filter.h"

namespace grader {

namespace {

using json = nlohmann::json;

std::string format_seconds(double seconds) {
  std::ostringstream text;
  text.precision(seconds < 10 ? 2 : 0);
  text << std::fixed << seconds << " s";
  return text.str();
}

}  // namespace

WorkerFailure describe_ending(const Ending& ending, const ProcessLimits& limits) {
  switch (ending.kind) {
    case Ending::Kind::exited:
      return {Verdict::no_completion, "exited with code " + std::to_string(ending.exit_code) +
                                          " before reporting its results (exit() called inside the code?)"};
    case Ending::Kind::signaled:
      if (ending.signal == SIGXFSZ)
        return {Verdict::output_limit, "wrote past the file-size limit of " + std::to_string(limits.file_bytes >> 20) +
                                           " MiB (filling the disk?)"};
      if (ending.signal == SIGSYS)
        return {Verdict::crash, "killed by SIGSYS: it made a system call the grader's syscall filter refuses"};
      return {Verdict::crash, "killed by " + ending.signal_name};
    case Ending::Kind::wall_timeout:
      return {Verdict::time_limit, "ran past the wall-clock limit of " + format_seconds(limits.wall_seconds)};
    case Ending::Kind::cpu_timeout:
      return {Verdict::time_limit, "ran past the CPU-time limit of " + format_seconds(limits.cpu_seconds)};
    case Ending::Kind::memory_limit:
      return {Verdict::memory_limit, "used more than " + std::to_string(limits.memory_bytes >> 20) + " MiB of memory"};
    case Ending::Kind::output_limit:
      return {Verdict::output_limit, "printed more than " + std::to_string(limits.output_bytes / 1024) +
                                         " KiB to stdout or stderr"};
    case Ending::Kind::written_limit:
      return {Verdict::output_limit, "wrote more than " + std::to_string(limits.written_bytes >> 20) +
                                         " MiB of files (its work directory and /tmp together)"};
    case Ending::Kind::start_failed:  // the machine's doing (run/process.h): never the code's verdict
      return {Verdict::internal_error, "the grading machine could not start it (" + ending.start_failure + ")"};
    case Ending::Kind::running:
      break;
  }
  return {Verdict::internal_error, "the process is still running"};
}

Worker::Worker(const LaunchOptions& options, std::string role, WorkerCode code)
    : process_(ChildProcess::launch(options)), role_(std::move(role)), code_(code), limits_(options.limits) {}

bool Worker::fail(Verdict verdict, std::string details) {
  failure_ = {verdict, std::move(details)};
  return false;
}

bool Worker::fail_from_ending() {
  alive_ = false;
  const Ending& ending = process_.finish();
  failure_ = describe_ending(ending, limits_);
  // The filter's SIGSYS reporter names the call on stderr (run/syscall_filter.h): the verdict leads with it.
  bool named_call = false;
  if (ending.signal == SIGSYS) {
    const std::string& text = process_.stderr_text();
    const auto marker = text.rfind(kForbiddenSyscallMarker);
    if (marker != std::string::npos) {
      const auto start = marker + kForbiddenSyscallMarker.size();
      const auto stop = text.find(" (refused", start);
      failure_.details = "forbidden system call " + text.substr(start, stop == std::string::npos ? std::string::npos : stop - start) +
                         " (refused by the grader's syscall filter, killed by SIGSYS)";
      named_call = true;
    }
  }
  // A sanitizer that stopped the process (--sanitize=address,undefined) ends its report with one line saying
  // what and where: "SUMMARY: AddressSanitizer: heap-buffer-overflow src/matvec.cpp:25 in matvec_unrolled".
  const std::string& errors = process_.stderr_text();
  if (const auto summary = errors.rfind("SUMMARY: "); summary != std::string::npos && !named_call &&
                                                      errors.find("Sanitizer", summary) != std::string::npos) {
    const auto start = summary + std::string("SUMMARY: ").size();
    const auto end = errors.find('\n', start);
    failure_ = {Verdict::crash, errors.substr(start, end == std::string::npos ? std::string::npos : end - start) +
                                    " (the sanitizer's full report is in the report's sanitizer section)"};
    return false;
  }
  // The last words on stderr usually say why (a CUDA error, an assertion, an uncaught exception).
  if ((failure_.verdict == Verdict::crash || failure_.verdict == Verdict::no_completion) && !named_call) {
    std::string tail = process_.stderr_text();
    if (tail.size() > 400) tail = "..." + tail.substr(tail.size() - 400);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    if (!tail.empty()) failure_.details += "; stderr: " + tail;
  }
  return false;
}

bool Worker::send_command(const std::string& line) {
  if (!drain_pending_setup() || !alive_) return false;
  if (!process_.send(line + "\n")) return fail_from_ending();
  return true;
}

bool Worker::receive(const std::string& expected, double timeout, std::string& reply_json, std::vector<Array>* arrays) {
  std::string line;
  switch (process_.read_line(line, std::chrono::duration<double>(timeout))) {
    case ReadStatus::ok:
      break;
    case ReadStatus::deadline:
      alive_ = false;
      process_.kill();
      return fail(Verdict::time_limit, "no answer within " + format_seconds(timeout) + " (an endless loop, or far too slow)");
    case ReadStatus::closed:
    case ReadStatus::killed:
      return fail_from_ending();
  }
  json reply;
  try {
    reply = json::parse(line);
  } catch (const std::exception&) {
    alive_ = false;
    process_.kill();
    return fail(Verdict::suspect, "the results channel carried something that is not a reply (written by the submission?)");
  }
  const std::string type = reply.value("type", "");
  if (type == "error") {
    const std::string stage = reply.value("stage", "");
    const std::string message = reply.value("message", "");
    if (stage == "run") {
      if (message.find("bad_alloc") != std::string::npos)
        return fail(Verdict::memory_limit, "memory allocation failed (std::bad_alloc) within the memory limit");
      return fail(Verdict::crash, "an exception escaped the code: " + message);
    }
    // Only the judge speaks for the lab. In the submission's process the lab kit's reply is no proof: the code
    // shares the process, can write a forged "setup" error on the pipe, or damage the harness until it fails. The
    // judge runs the same harness on the same case first, so a harness that really fails is the judge's failure.
    if (code_ == WorkerCode::submission) {
      alive_ = false;
      process_.kill();
      return fail(Verdict::crash, "the lab's harness reported a failure in " + stage + " inside the submission's "
                                  "process (the lab's own failures are the judge's, which runs the same harness "
                                  "alone): " + message);
    }
    return fail(Verdict::internal_error, "the lab's harness failed in " + stage + ": " + message);
  }
  if (type != expected) {
    alive_ = false;
    process_.kill();
    return fail(Verdict::suspect, "expected a '" + expected + "' reply, got '" + type + "'");
  }
  if (arrays != nullptr) {
    arrays->clear();
    for (const auto& spec : reply.value("arrays", json::array())) {
      Array array;
      array.name = spec.value("name", "");
      const auto dtype = parse_dtype(spec.value("dtype", ""));
      if (dtype) array.dtype = *dtype;
      if (!dtype) {
        alive_ = false;
        process_.kill();
        return fail(Verdict::suspect, "a reply named an unknown dtype");
      }
      array.shape = spec.value("shape", std::vector<std::int64_t>{});
      const auto bytes = spec.value("bytes", std::uint64_t{0});
      // A worker's array header is not trusted: the shape must be sane and agree with the byte count, and
      // the size must be one the lab's memory limit allows, before anything is allocated for it.
      const std::string problem = layout_problem(array.name, array.dtype, array.shape, bytes);
      const std::uint64_t most = limits_.memory_bytes > 0 ? limits_.memory_bytes : (std::uint64_t{1} << 40);
      if (!problem.empty() || bytes > most) {
        alive_ = false;
        process_.kill();
        return fail(Verdict::suspect, "a reply announced an impossible array: " + (problem.empty() ? "too large" : problem));
      }
      try {
        array.bytes = storage_.take(bytes);  // overwritten whole below, or the answer fails
      } catch (const std::bad_alloc&) {
        alive_ = false;
        process_.kill();
        return fail(Verdict::suspect, "a reply announced an array the grader cannot hold (" + std::to_string(bytes >> 20) + " MiB)");
      }
      switch (process_.read_exact(array.bytes.data(), bytes, std::chrono::duration<double>(timeout))) {
        case ReadStatus::ok:
          break;
        case ReadStatus::deadline:
          alive_ = false;
          process_.kill();
          return fail(Verdict::time_limit, "stopped sending its outputs");
        case ReadStatus::closed:
        case ReadStatus::killed:
          return fail_from_ending();
      }
      arrays->push_back(std::move(array));
    }
  }
  reply_json = reply.dump();
  return true;
}

bool Worker::hello(std::vector<std::string>& variants, double timeout) {
  std::string reply;
  if (!send_command(R"({"op":"hello"})") || !receive("hello", timeout, reply, nullptr)) return false;
  variants = json::parse(reply).value("variants", std::vector<std::string>{});
  return true;
}

bool Worker::setup(const Variables& params, std::uint64_t seed, const std::vector<Array>& supplied, double timeout) {
  return start_setup(params, seed, supplied, timeout) && finish_setup();
}

bool Worker::start_setup(const Variables& params, std::uint64_t seed, const std::vector<Array>& supplied, double timeout) {
  inputs_.reset();
  pending_inputs_.reset();
  if (supplied.empty()) pending_inputs_.emplace(params, seed);
  json command = {{"op", "setup"}, {"params", params}, {"seed", seed}};
  json arrays = json::array();
  for (const auto& a : supplied)
    arrays.push_back({{"name", a.name}, {"dtype", to_string(a.dtype)}, {"shape", a.shape}, {"bytes", a.bytes.size()}});
  command["arrays"] = arrays;
  if (!send_command(command.dump())) return false;
  for (const auto& a : supplied) {
    if (!process_.send(std::string_view(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size())))
      return fail_from_ending();
  }
  // The timeout runs from when the reply is awaited: the worker may have been working all along.
  pending_setup_timeout_ = timeout;
  return true;
}

bool Worker::finish_setup() {
  if (!pending_setup_timeout_) return alive_;
  const double timeout = *pending_setup_timeout_;
  pending_setup_timeout_.reset();
  std::string reply;
  if (!receive("ready", timeout, reply, nullptr)) return false;
  inputs_ = std::move(pending_inputs_);
  pending_inputs_.reset();
  return true;
}

bool Worker::drain_pending_setup() { return !pending_setup_timeout_ || finish_setup(); }

bool Worker::run(const std::string& variant, double timeout, std::vector<Array>& outputs, double& seconds, bool profile) {
  std::string reply;
  json command = {{"op", "run"}, {"variant", variant}};
  if (profile) command["profile"] = true;
  if (!send_command(command.dump()) || !receive("outputs", timeout, reply, &outputs))
    return false;
  seconds = json::parse(reply).value("seconds", 0.0);
  return true;
}

bool Worker::inputs(std::vector<Array>& arrays, double timeout) {
  std::string reply;
  return send_command(R"({"op":"inputs"})") && receive("inputs", timeout, reply, &arrays);
}

bool Worker::time(const std::string& variant, int warmup, int reps, bool want_outputs, double timeout, TimedCalls& into) {
  json command = {{"op", "time"}, {"variant", variant}, {"warmup", warmup}, {"reps", reps}, {"outputs", want_outputs}};
  // The checks after the last call (work left running, outputs that moved) guard against the submission's code;
  // the lab's own code is spared them, and their cost (worker_protocol.md).
  if (code_ == WorkerCode::lab) command["checks"] = false;
  std::string reply;
  std::vector<Array> outputs;
  if (!send_command(command.dump()) || !receive("times", timeout, reply, &outputs)) return false;
  const json parsed = json::parse(reply);
  auto seconds = parsed.value("seconds", std::vector<double>{});
  into.busy_threads = std::max(into.busy_threads, parsed.value("busy_threads", 0));
  into.outputs_changed = into.outputs_changed || parsed.value("outputs_changed", false);
  if (static_cast<int>(seconds.size()) != reps)
    return fail(Verdict::suspect, "reported " + std::to_string(seconds.size()) + " timings for " + std::to_string(reps) + " calls");
  into.seconds.insert(into.seconds.end(), seconds.begin(), seconds.end());
  if (want_outputs) into.outputs = std::move(outputs);
  return true;
}

void Worker::quit(std::chrono::duration<double> grace) {
  if (alive_ && process_.send("{\"op\":\"quit\"}\n")) {
    std::string line;
    (void)process_.read_line(line, std::chrono::seconds(5));
  }
  alive_ = false;
  process_.finish(grace);
}

}  // namespace grader
