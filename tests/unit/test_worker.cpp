// test_worker.cpp: the grader's side of the worker protocol (grader/src/run/worker.h). describe_ending maps
// every way a process ends to a verdict; a Worker is driven against fake workers: python3 one-liners that
// speak the protocol on fds 3 and 4 (grader/labkit/worker_protocol.md) and misbehave in one way each.
// When run as root, children run as nobody, so the work directory must be reachable by it.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/environment.h"
#include "run/sandbox.h"
#include "run/worker.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

// A fake worker. `python3 -c SCRIPT MODE`: MODE says how it answers `run` and `time`; hello, setup and
// quit are always answered properly. A run's output is y = [1.5, -2] (f64, shape [2]).
const char* kFakeWorker = R"PY(
import json, os, signal, struct, sys, time
mode = sys.argv[1]
commands = os.fdopen(3, "rb", buffering=0)
replies = os.fdopen(4, "wb", buffering=0)

def read_line():
    line = b""
    while True:
        c = commands.read(1)
        if not c:
            return None
        if c == b"\n":
            return line
        line += c

def send(message, payload=b""):
    replies.write((json.dumps(message) + "\n").encode() + payload)

Y = struct.pack("<2d", 1.5, -2.0)
Y_SPEC = [{"name": "y", "dtype": "f64", "shape": [2], "bytes": 16}]

while True:
    line = read_line()
    if line is None:
        sys.exit(0)
    command = json.loads(line)
    op = command["op"]
    if op == "hello":
        send({"type": "hello", "protocol": 1, "variants": ["v"]})
    elif op == "setup" and mode == "setup_refused":
        send({"type": "error", "stage": "setup", "message": "lab8 needs n >= 1, got 0"})
    elif op == "setup":
        send({"type": "ready", "seconds": 0.0})
    elif op == "quit":
        send({"type": "bye"})
        sys.exit(0)
    elif mode == "good" and op == "run":
        send({"type": "outputs", "seconds": 0.25, "arrays": Y_SPEC}, Y)
    elif mode == "good" and op == "time":
        reply = {"type": "times", "seconds": [0.001] * command["reps"]}
        if command.get("outputs"):
            reply["arrays"] = Y_SPEC
            send(reply, Y)
        else:
            send(reply)
    elif mode == "reports_checks" and op == "time":
        # busy_threads says whether the after-call checks were asked for ("checks" absent or true).
        send({"type": "times", "seconds": [0.001] * command["reps"], "busy_threads": 0 if command.get("checks") is False else 1})
    elif mode == "wrong_count":
        send({"type": "times", "seconds": [0.001] * (command["reps"] + 1)})
    elif mode == "garbage":
        replies.write(b"hello from printf-debugging, not JSON\n")
    elif mode == "exit0":
        sys.exit(0)
    elif mode == "exit3":
        os._exit(3)
    elif mode == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif mode == "bad_alloc":
        send({"type": "error", "stage": "run", "message": "std::bad_alloc"})
    elif mode == "throws":
        send({"type": "error", "stage": "run", "message": "matvec is not implemented"})
    elif mode == "setup_error":
        send({"type": "error", "stage": "setup", "message": "lab1 needs m >= 1"})
    elif mode == "wrong_type":
        send({"type": "ready", "seconds": 0.0})
    elif mode == "bad_bytes":
        send({"type": "outputs", "seconds": 0.0, "arrays": [{"name": "y", "dtype": "f64", "shape": [2], "bytes": 12}]}, Y[:12])
    elif mode == "bad_dtype":
        send({"type": "outputs", "seconds": 0.0, "arrays": [{"name": "y", "dtype": "f128", "shape": [1], "bytes": 16}]}, Y)
    elif mode == "huge_array":
        # 2^47 doubles: a byte count that matches its shape, and more memory than any machine has.
        send({"type": "outputs", "seconds": 0.0, "arrays": [{"name": "y", "dtype": "f64", "shape": [2**47], "bytes": 2**50}]})
    elif mode == "oversized":
        # 512 MiB announced (a consistent header), nothing sent: more than the worker's memory limit allows.
        send({"type": "outputs", "seconds": 0.0, "arrays": [{"name": "y", "dtype": "f64", "shape": [2**26], "bytes": 2**29}]})
        time.sleep(60)
    elif mode == "short_array":
        send({"type": "outputs", "seconds": 0.0, "arrays": Y_SPEC}, Y[:8])
        sys.exit(0)
    elif mode == "hang":
        time.sleep(60)
    else:
        send({"type": "error", "stage": "protocol", "message": "unknown op"})
)PY";

// A fresh directory under /tmp that uid 65534 can enter, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/test_worker.XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path_ = name;
    chmod(name, 0755);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The system's python3 first: the fake workers run as nobody (when the test runs as root) and inside the
// sandbox, where a python3 under /root (pyenv's shims) cannot be reached.
std::string python3() {
  for (const char* system : {"/usr/bin/python3", "/bin/python3"})
    if (::access(system, X_OK) == 0) return system;
  auto found = find_on_path("python3");
  REQUIRE_MESSAGE(found.has_value(), "these tests need python3 for their fake workers");
  return *found;
}

LaunchOptions fake_worker(const std::string& mode, const fs::path& workdir) {
  LaunchOptions options;
  options.argv = {python3(), "-c", kFakeWorker, mode};
  options.workdir = workdir;
  options.environment = {{"PATH", "/usr/bin:/bin"}};
  options.limits.wall_seconds = 30;
  options.limits.cpu_seconds = 30;
  return options;
}

// A worker that has said hello: what the grader holds before the first setup. `code`: whose code the process runs
// (a candidate runs the submission's).
struct Greeted {
  TempDir dir;
  Worker worker;
  explicit Greeted(const std::string& mode, WorkerCode code = WorkerCode::submission)
      : worker(fake_worker(mode, dir.path()), code == WorkerCode::lab ? "judge" : "candidate", code) {
    std::vector<std::string> variants;
    REQUIRE(worker.hello(variants, 10));
    CHECK(variants == std::vector<std::string>{"v"});
  }
};

// A worker that has said hello and been set up: what the grader holds before it runs anything.
struct Started : Greeted {
  explicit Started(const std::string& mode, WorkerCode code = WorkerCode::submission) : Greeted(mode, code) {
    REQUIRE(worker.setup({{"m", 2}}, 42, {}, 10));
  }
};

// Runs variant "v" once and returns the failure it ends in (passed when it succeeded).
WorkerFailure run_once(Worker& worker, double timeout = 10) {
  std::vector<Array> outputs;
  double seconds = 0;
  if (worker.run("v", timeout, outputs, seconds)) return {};
  return worker.failure();
}

}  // namespace

TEST_CASE("describe_ending: each way of ending has its verdict") {
  ProcessLimits limits;
  limits.wall_seconds = 5;
  limits.cpu_seconds = 7;
  limits.memory_bytes = std::size_t{512} << 20;
  limits.output_bytes = 64 * 1024;

  Ending ending;
  ending.kind = Ending::Kind::exited;
  ending.exit_code = 0;
  WorkerFailure f = describe_ending(ending, limits);
  CHECK(f.verdict == Verdict::no_completion);
  CHECK(f.details.find("exited with code 0") != std::string::npos);

  ending.exit_code = 3;
  CHECK(describe_ending(ending, limits).verdict == Verdict::no_completion);
  CHECK(describe_ending(ending, limits).details.find("code 3") != std::string::npos);

  ending.kind = Ending::Kind::signaled;
  ending.signal = 11;
  ending.signal_name = "SIGSEGV";
  f = describe_ending(ending, limits);
  CHECK(f.verdict == Verdict::crash);
  CHECK(f.details.find("SIGSEGV") != std::string::npos);

  ending.kind = Ending::Kind::wall_timeout;
  f = describe_ending(ending, limits);
  CHECK(f.verdict == Verdict::time_limit);
  CHECK(f.details.find("wall-clock") != std::string::npos);

  ending.kind = Ending::Kind::cpu_timeout;
  f = describe_ending(ending, limits);
  CHECK(f.verdict == Verdict::time_limit);
  CHECK(f.details.find("CPU") != std::string::npos);

  ending.kind = Ending::Kind::memory_limit;
  f = describe_ending(ending, limits);
  CHECK(f.verdict == Verdict::memory_limit);
  CHECK(f.details.find("512 MiB") != std::string::npos);

  ending.kind = Ending::Kind::output_limit;
  f = describe_ending(ending, limits);
  CHECK(f.verdict == Verdict::output_limit);
  CHECK(f.details.find("64 KiB") != std::string::npos);

  ending.kind = Ending::Kind::running;
  CHECK(describe_ending(ending, limits).verdict == Verdict::internal_error);
}

TEST_CASE("a worker that follows the protocol") {
  Started s("good");
  std::vector<Array> outputs;
  double seconds = 0;
  REQUIRE(s.worker.run("v", 10, outputs, seconds));
  CHECK(seconds == doctest::Approx(0.25));
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0].name == "y");
  CHECK(outputs[0].dtype == DType::f64);
  CHECK(outputs[0].shape == std::vector<std::int64_t>{2});
  REQUIRE(outputs[0].bytes.size() == 16);
  double y[2];
  std::memcpy(y, outputs[0].bytes.data(), 16);
  CHECK(y[0] == 1.5);
  CHECK(y[1] == -2.0);

  TimedCalls calls;
  REQUIRE(s.worker.time("v", 1, 5, true, 10, calls));
  CHECK(calls.seconds.size() == 5);
  REQUIRE(calls.outputs.size() == 1);
  CHECK(calls.outputs[0].bytes.size() == 16);
  TimedCalls more;
  REQUIRE(s.worker.time("v", 0, 3, false, 10, more));
  CHECK(more.seconds.size() == 3);
  CHECK(more.outputs.empty());

  CHECK(s.worker.alive());
  s.worker.quit();
  CHECK_FALSE(s.worker.alive());
}

TEST_CASE("the after-call checks are asked of a process running the submission's code, never of the judge") {
  // They guard against the submission (work left running, outputs that move); the judge's cost them a copy and two
  // fingerprints of its outputs per command, unread (lab 7's 64 MB C, lab 6's 256 MB y).
  Started candidate("reports_checks", WorkerCode::submission);
  TimedCalls asked;
  REQUIRE(candidate.worker.time("v", 0, 2, false, 10, asked));
  CHECK(asked.busy_threads == 1);
  Started judge("reports_checks", WorkerCode::lab);
  TimedCalls spared;
  REQUIRE(judge.worker.time("v", 0, 2, false, 10, spared));
  CHECK(spared.busy_threads == 0);
}

TEST_CASE("the wrong number of timings is suspect") {
  Started s("wrong_count");
  TimedCalls calls;
  CHECK_FALSE(s.worker.time("v", 0, 4, false, 10, calls));
  CHECK(s.worker.failure().verdict == Verdict::suspect);
  CHECK(s.worker.failure().details.find("5 timings for 4 calls") != std::string::npos);
  CHECK(calls.seconds.empty());  // nothing of a suspect reply is kept
}

TEST_CASE("garbage on the results channel is suspect, and the worker is dead") {
  Started s("garbage");
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::suspect);
  CHECK_FALSE(s.worker.alive());
  CHECK(run_once(s.worker).verdict == Verdict::suspect);  // later commands fail at once, same reason
}

TEST_CASE("a reply of the wrong type is suspect") {
  Started s("wrong_type");
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::suspect);
  CHECK(f.details.find("'outputs'") != std::string::npos);
  CHECK_FALSE(s.worker.alive());
}

TEST_CASE("an array whose byte count does not match its shape is suspect") {
  Started s("bad_bytes");
  CHECK(run_once(s.worker).verdict == Verdict::suspect);
  CHECK_FALSE(s.worker.alive());
}

TEST_CASE("an array of an unknown dtype is suspect") {
  Started s("bad_dtype");
  CHECK(run_once(s.worker).verdict == Verdict::suspect);
  CHECK_FALSE(s.worker.alive());
}

TEST_CASE("an array too large to exist is the worker's failure, not the grader's") {
  // The reply channel is written from inside the untrusted process: a submission can write any header.
  // The grader must refuse it as a verdict rather than try to allocate 1 PiB and throw (internal error).
  Started s("huge_array");
  WorkerFailure f;
  CHECK_NOTHROW(f = run_once(s.worker));
  CHECK(f.verdict == Verdict::suspect);
  CHECK_FALSE(s.worker.alive());
}

TEST_CASE("an array larger than the worker's memory limit allows is suspect, before anything is allocated") {
  // worker.cpp promises "the size must be one the lab's memory limit allows": a process held to 64 MiB
  // cannot hold a 512 MiB output, so the header is a lie; the grader must not allocate for it and wait.
  TempDir dir;
  LaunchOptions options = fake_worker("oversized", dir.path());
  options.limits.memory_bytes = std::size_t{64} << 20;
  options.limits.limit_address_space = false;  // python3 reserves more address space than it uses
  Worker worker(options, "candidate", WorkerCode::submission);
  std::vector<std::string> variants;
  REQUIRE(worker.hello(variants, 10));
  REQUIRE(worker.setup({{"m", 2}}, 42, {}, 10));
  const WorkerFailure f = run_once(worker, 3);
  CHECK(f.verdict == Verdict::suspect);
  CHECK_FALSE(worker.alive());
}

TEST_CASE("exiting with code 0 before answering is no completion") {
  Started s("exit0");
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::no_completion);
  CHECK(f.details.find("code 0") != std::string::npos);
  CHECK_FALSE(s.worker.alive());
}

TEST_CASE("exiting with another code is no completion too") {
  Started s("exit3");
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::no_completion);
  CHECK(f.details.find("code 3") != std::string::npos);
}

TEST_CASE("exiting halfway through an array is no completion") {
  Started s("short_array");
  CHECK(run_once(s.worker).verdict == Verdict::no_completion);
  CHECK_FALSE(s.worker.alive());
}

TEST_CASE("a signal is a crash named by the signal") {
  Started s("segv");
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::crash);
  CHECK(f.details.find("SIGSEGV") != std::string::npos);
}

TEST_CASE("std::bad_alloc in the run is memory_limit; the worker lives on") {
  Started s("bad_alloc");
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::memory_limit);
  CHECK(f.details.find("bad_alloc") != std::string::npos);
  CHECK(s.worker.alive());  // an error reply is an answer: the worker waits for the next command
}

TEST_CASE("another exception in the run is a crash quoting its message") {
  Started s("throws");
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::crash);
  CHECK(f.details.find("matvec is not implemented") != std::string::npos);
}

TEST_CASE("an error outside the run, from the judge, is the harness's: internal error") {
  Started s("setup_error", WorkerCode::lab);
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::internal_error);
  CHECK(f.details.find("lab1 needs m >= 1") != std::string::npos);
}

TEST_CASE("the same error reply from a process running the submission's code is the submission's crash") {
  // A candidate can write any reply on the results pipe (issue 32: a forged "setup" error, then exit): nothing it
  // says makes a grading internal, and the process is ended.
  Started s("setup_error");
  const WorkerFailure f = run_once(s.worker);
  CHECK(f.verdict == Verdict::crash);
  CHECK(f.details.find("in setup inside the submission's process") != std::string::npos);
  CHECK(f.details.find("lab1 needs m >= 1") != std::string::npos);
  CHECK_FALSE(s.worker.alive());

  Greeted refused("setup_refused");
  REQUIRE(refused.worker.start_setup({{"n", 0}}, 42, {}, 10));
  CHECK_FALSE(refused.worker.finish_setup());
  CHECK(refused.worker.failure().verdict == Verdict::crash);
}

// start_setup() lets the grader work while a worker builds its inputs; the reply must still be read, in order.
TEST_CASE("a setup whose reply is read later: finish_setup() reads it once") {
  Greeted g("good");
  REQUIRE(g.worker.start_setup({{"m", 2}}, 42, {}, 10));
  CHECK(g.worker.finish_setup());
  CHECK(g.worker.finish_setup());  // nothing pending: the worker is simply alive
  CHECK(run_once(g.worker).verdict == Verdict::passed);
}

// measure_item.cpp sets up nothing again where a worker holds the inputs already: only a setup that answered counts.
TEST_CASE("holds_inputs: the parameters and seed of the last setup that answered, and nothing else") {
  Greeted g("good");
  CHECK_FALSE(g.worker.holds_inputs({{"m", 2}}, 42));
  REQUIRE(g.worker.start_setup({{"m", 2}}, 42, {}, 10));
  CHECK_FALSE(g.worker.holds_inputs({{"m", 2}}, 42));  // no reply yet
  REQUIRE(g.worker.finish_setup());
  CHECK(g.worker.holds_inputs({{"m", 2}}, 42));
  CHECK_FALSE(g.worker.holds_inputs({{"m", 3}}, 42));
  CHECK_FALSE(g.worker.holds_inputs({{"m", 2}}, 43));
  CHECK(run_once(g.worker).verdict == Verdict::passed);
  CHECK(g.worker.holds_inputs({{"m", 2}}, 42));  // a call restores the inputs set up before changing them
  REQUIRE(g.worker.setup({{"m", 3}}, 42, {}, 10));
  CHECK_FALSE(g.worker.holds_inputs({{"m", 2}}, 42));
  CHECK(g.worker.holds_inputs({{"m", 3}}, 42));

  Greeted refused("setup_refused");
  REQUIRE(refused.worker.start_setup({{"n", 0}}, 42, {}, 10));
  CHECK_FALSE(refused.worker.finish_setup());
  CHECK_FALSE(refused.worker.holds_inputs({{"n", 0}}, 42));
}

TEST_CASE("a setup whose reply no one read is read before the next command, so replies stay in step") {
  Greeted g("good");
  REQUIRE(g.worker.start_setup({{"m", 2}}, 42, {}, 10));
  // Without the drain, run() would read setup's "ready" as its reply and fail as a reply of the wrong type.
  std::vector<Array> outputs;
  double seconds = 0;
  REQUIRE(g.worker.run("v", 10, outputs, seconds));
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0].name == "y");
}

TEST_CASE("a refused setup read late is still the harness's error, and the next command does not run") {
  Greeted read("setup_refused", WorkerCode::lab);
  REQUIRE(read.worker.start_setup({{"n", 0}}, 42, {}, 10));
  CHECK_FALSE(read.worker.finish_setup());
  CHECK(read.worker.failure().verdict == Verdict::internal_error);
  CHECK(read.worker.failure().details.find("lab8 needs n >= 1") != std::string::npos);

  Greeted unread("setup_refused", WorkerCode::lab);
  REQUIRE(unread.worker.start_setup({{"n", 0}}, 42, {}, 10));
  const WorkerFailure f = run_once(unread.worker);
  CHECK(f.verdict == Verdict::internal_error);
  CHECK(f.details.find("lab8 needs n >= 1") != std::string::npos);
}

TEST_CASE("never answering is a time limit after the command's timeout") {
  Started s("hang");
  const auto start = std::chrono::steady_clock::now();
  const WorkerFailure f = run_once(s.worker, 1.0);
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(f.verdict == Verdict::time_limit);
  CHECK(waited >= 0.9);
  CHECK(waited < 5);  // the command's timeout, not the 30 s wall limit
  CHECK_FALSE(s.worker.alive());
}

TEST_CASE("a worker that dies before hello") {
  TempDir dir;
  LaunchOptions options = fake_worker("good", dir.path());
  options.argv = {"/bin/sh", "-c", "exit 7"};
  Worker worker(options, "judge", WorkerCode::lab);
  std::vector<std::string> variants;
  CHECK_FALSE(worker.hello(variants, 10));
  CHECK(worker.failure().verdict == Verdict::no_completion);
  CHECK_FALSE(worker.alive());
  CHECK(worker.role() == "judge");
}

// The candidate runs inside bubblewrap where the machine allows it (pipeline/launch.cpp): its verdicts
// must read the same as without the box. bwrap stays the direct child and reports a child killed by
// signal N as its own exit code 128 + N.
TEST_CASE("inside the sandbox, a signal is still a crash named by the signal") {
  const Sandbox& sandbox = Sandbox::get();
  if (!sandbox.available()) {
    MESSAGE("skipped: no sandbox on this machine (" << sandbox.description() << ")");
    return;
  }
  TempDir dir;
  LaunchOptions options = fake_worker("segv", dir.path());
  options.wrapper = sandbox.wrapper(dir.path(), dir.path(), {}, false);
  Worker worker(options, "candidate", WorkerCode::submission);
  std::vector<std::string> variants;
  REQUIRE(worker.hello(variants, 10));
  REQUIRE(worker.setup({{"m", 2}}, 42, {}, 10));
  const WorkerFailure f = run_once(worker);
  CHECK(f.verdict == Verdict::crash);
  CHECK(f.details.find("SIGSEGV") != std::string::npos);
}

TEST_CASE("inside the sandbox, an exit is still no completion with its own code") {
  const Sandbox& sandbox = Sandbox::get();
  if (!sandbox.available()) {
    MESSAGE("skipped: no sandbox on this machine (" << sandbox.description() << ")");
    return;
  }
  TempDir dir;
  LaunchOptions options = fake_worker("exit3", dir.path());
  options.wrapper = sandbox.wrapper(dir.path(), dir.path(), {}, false);
  Worker worker(options, "candidate", WorkerCode::submission);
  std::vector<std::string> variants;
  REQUIRE(worker.hello(variants, 10));
  REQUIRE(worker.setup({{"m", 2}}, 42, {}, 10));
  const WorkerFailure f = run_once(worker);
  CHECK(f.verdict == Verdict::no_completion);
  CHECK(f.details.find("code 3") != std::string::npos);
}
