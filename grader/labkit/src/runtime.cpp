// The lab kit's main(): serves the worker protocol (worker_protocol.md) for the problem the harness
// registered. Linked into every candidate and judge; compiled once per lab and flags.
#include <labkit/labkit.h>

#include "fresh_inputs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

namespace labkit {

namespace {

using json = nlohmann::json;

// The lab kit's clock: CLOCK_MONOTONIC, read here through the C library (the vDSO), in a function of this file
// alone. Never std::chrono::steady_clock::now(): that is a libstdc++ function the harness reaches by name, and a
// submission's object once defined that name (weak) and so slowed the harness's clock during its own calls
// (issue 32). Nothing outside this file can bind a call of a static function; clock_gettime is a name the link
// policy refuses a submission to define, every other definition of a submission's is made local, and the
// candidate is linked -z now, so the table its call goes through is read-only before main.
std::int64_t monotonic_nanoseconds() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

double seconds_since(std::int64_t start) { return static_cast<double>(monotonic_nanoseconds() - start) * 1e-9; }

constexpr int command_fd = 3;
constexpr int reply_fd = 4;

ProblemFactory& registered_factory() {
  static ProblemFactory factory = nullptr;
  return factory;
}

DType parse_dtype(const std::string& name) {
  if (name == "f32") return DType::f32;
  if (name == "f64") return DType::f64;
  if (name == "i32") return DType::i32;
  if (name == "i64") return DType::i64;
  throw Error("unknown dtype '" + name + "'");
}

// Reads and writes whole messages on the protocol pipes. Raw fds rather than stdio streams, so
// nothing the student does to stdout/stdin buffering can touch the channel.
class Channel {
 public:
  bool read_line(std::string& line) {
    line.clear();
    char c;
    for (;;) {
      ssize_t got = ::read(command_fd, &c, 1);
      if (got == 0) return !line.empty();
      if (got < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      if (c == '\n') return true;
      line.push_back(c);
    }
  }

  void read_bytes(void* into, std::size_t count) {
    auto* cursor = static_cast<char*>(into);
    while (count > 0) {
      ssize_t got = ::read(command_fd, cursor, count);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) throw Error("the grader closed the command pipe inside an array");
      cursor += got;
      count -= static_cast<std::size_t>(got);
    }
  }

  void write_bytes(const void* from, std::size_t count) {
    const auto* cursor = static_cast<const char*>(from);
    while (count > 0) {
      ssize_t put = ::write(reply_fd, cursor, count);
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) std::_Exit(3);  // the grader is gone: nobody to report to
      cursor += put;
      count -= static_cast<std::size_t>(put);
    }
  }

  void send(json message, const std::vector<ArrayRef>& arrays = {}) {
    if (!arrays.empty() || message.contains("arrays")) {
      json list = json::array();
      for (const auto& a : arrays)
        list.push_back({{"name", a.name}, {"dtype", dtype_name(a.dtype)}, {"shape", a.shape}, {"bytes", a.bytes()}});
      message["arrays"] = list;
    }
    std::string line = message.dump() + "\n";
    write_bytes(line.data(), line.size());
    for (const auto& a : arrays) write_bytes(a.data, a.bytes());
  }
};

// FNV-1a's step over every output word: enough to notice an output that changes after the call returned. Taken
// over 8-byte words in four interleaved lanes, not byte by byte: one multiply's latency per byte made the two
// fingerprints of each `time` command cost more than the timed calls on large outputs (lab 7's 64 MB C: 0.2 s a
// fingerprint on a 2-vCPU EPYC VM, 21 ms now; lab 6's 256 MB y: 1.0 s, 0.1 s now). Every step is a bijection
// of its lane, and so is folding the lanes together, so a change of any one word always moves the fingerprint.
// The outputs are copied to the host before they are fingerprinted (GPU labs), so its speed moves no snapshot.
std::uint64_t fingerprint_span(const unsigned char* bytes, std::size_t count) {
  constexpr std::uint64_t prime = 1099511628211ULL;
  constexpr std::uint64_t basis = 1469598103934665603ULL;
  std::uint64_t lanes[4] = {basis, basis ^ 1, basis ^ 2, basis ^ 3};
  std::size_t i = 0;
  for (; i + sizeof(std::uint64_t[4]) <= count; i += sizeof(std::uint64_t[4])) {
    std::uint64_t words[4];
    std::memcpy(words, bytes + i, sizeof words);  // outputs need not be 8-byte aligned
    for (int lane = 0; lane < 4; ++lane) lanes[lane] = (lanes[lane] ^ words[lane]) * prime;
  }
  for (; i < count; ++i) lanes[0] = (lanes[0] ^ bytes[i]) * prime;
  std::uint64_t hash = lanes[0];
  for (int lane = 1; lane < 4; ++lane) hash = (hash ^ lanes[lane]) * prime;
  return hash;
}

// The outputs in spans of at most 4 MiB, each fingerprinted as above, and the spans' fingerprints folded in order, by
// the same bijective step: a change of any one word still moves the whole. Spans are fixed, not one per thread, so the
// fingerprint is the same however many threads take them. Where the process may start threads (a GPU lab's), several
// do on large outputs (Rng::fill_threads): lab 6's 256 MB y took two fingerprints of 0.1 s each on one thread for
// every checked call. The helpers are joined before the caller looks for threads left running.
std::uint64_t fingerprint(const std::vector<ArrayRef>& arrays) {
  constexpr std::uint64_t prime = 1099511628211ULL;
  constexpr std::uint64_t basis = 1469598103934665603ULL;
  constexpr std::size_t span_bytes = std::size_t{4} << 20;
  struct Span {
    const unsigned char* bytes;
    std::size_t count;
  };
  std::vector<Span> spans;
  std::size_t total = 0;
  for (const auto& a : arrays) {
    const auto* bytes = static_cast<const unsigned char*>(a.data);
    const std::size_t count = a.bytes();
    total += count;
    for (std::size_t at = 0; at < count || (at == 0 && count == 0); at += span_bytes)
      spans.push_back({bytes + at, std::min(span_bytes, count - at)});
  }
  std::vector<std::uint64_t> hashes(spans.size());
  std::atomic<std::size_t> next{0};
  auto take_spans = [&] {
    for (std::size_t i = next++; i < spans.size(); i = next++) hashes[i] = fingerprint_span(spans[i].bytes, spans[i].count);
  };
  std::vector<std::thread> helpers;
  const int threads = std::min<std::size_t>(static_cast<std::size_t>(Rng::fill_threads(total / sizeof(std::uint64_t))), spans.size());
  for (int t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(take_spans);
    } catch (const std::system_error&) {
      break;  // this thread takes what the others would have
    }
  }
  take_spans();
  for (auto& helper : helpers) helper.join();
  std::uint64_t hash = basis;
  for (const std::uint64_t h : hashes) hash = (hash ^ h) * prime;
  return hash;
}

// One thread's scheduling state: its state letter and the nanoseconds it has spent on a CPU so far.
struct TaskSample {
  char state = '?';
  std::uint64_t cpu_ns = 0;
};

// Reads /proc/self/task/<tid>/stat (the state) and schedstat (time on a CPU, nanoseconds). Where the kernel
// has no schedstat, utime + stime from stat (clock ticks) stand in.
bool sample_task(const std::string& tid, TaskSample& sample) {
  std::ifstream stat("/proc/self/task/" + tid + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  // The state letter follows the command name's closing parenthesis; utime and stime are fields 14 and 15.
  const auto paren = line.rfind(')');
  if (paren == std::string::npos || paren + 2 >= line.size()) return false;
  sample.state = line[paren + 2];
  std::ifstream schedstat("/proc/self/task/" + tid + "/schedstat");
  if (schedstat >> sample.cpu_ns) return true;
  std::istringstream fields(line.substr(paren + 2));
  std::string field;
  std::uint64_t utime = 0, stime = 0;
  for (int index = 3; fields >> field; ++index) {
    if (index == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (index == 15) {
      stime = std::strtoull(field.c_str(), nullptr, 10);
      break;
    }
  }
  sample.cpu_ns = (utime + stime) * (1000000000ULL / static_cast<std::uint64_t>(::sysconf(_SC_CLK_TCK)));
  return true;
}

std::map<std::string, TaskSample> sample_other_tasks() {
  std::map<std::string, TaskSample> tasks;
  const std::string self = std::to_string(::syscall(SYS_gettid));
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (dirent* task = ::readdir(dir)) {
      const std::string tid = task->d_name;
      if (tid == "." || tid == ".." || tid == self) continue;
      TaskSample sample;
      if (sample_task(tid, sample)) tasks[tid] = sample;
    }
    ::closedir(dir);
  }
  return tasks;
}

// Threads of this process, other than the one calling, still working after a call returned. State R alone
// does not say so: an idle OpenMP worker that has not parked yet spins or yields for a moment, and on a busy
// machine a thread about to sleep in a futex waits its turn for a CPU in state R for many milliseconds. What
// work does and parking does not is use CPU time. So: a quick look first (nothing runnable, nothing to
// check); otherwise a thread counts as working when it spent at least a tenth of a 30 ms window on a CPU
// (a busy thread on a machine loaded five times over still gets twice that; parking takes microseconds).
int threads_still_running() {
  bool any_runnable = false;
  for (int look = 0; look < 3 && !any_runnable; ++look) {
    for (const auto& [tid, sample] : sample_other_tasks()) any_runnable = any_runnable || sample.state == 'R';
    if (!any_runnable) ::usleep(1000);
  }
  if (!any_runnable) return 0;
  constexpr std::uint64_t window_ns = 30'000'000;
  const auto before = sample_other_tasks();
  const std::int64_t start = monotonic_nanoseconds();
  ::usleep(window_ns / 1000);
  const auto after = sample_other_tasks();
  const auto elapsed_ns = static_cast<std::uint64_t>(monotonic_nanoseconds() - start);
  int working = 0;
  for (const auto& [tid, sample] : after) {
    auto earlier = before.find(tid);
    const std::uint64_t used = sample.cpu_ns - (earlier == before.end() ? 0 : earlier->second.cpu_ns);
    if (earlier == before.end() && sample.state != 'R') continue;  // started and already asleep: no work seen
    if (used * 10 >= std::max(elapsed_ns, window_ns)) ++working;
  }
  return working;
}

// A variant as the grader names it in a `run` or `time` command: "unrolled", or "unrolled@S:C" for fresh
// inputs, where S is the run's perturbation seed and C the index of the first call (worker_protocol.md).
struct Call {
  std::string variant;
  bool fresh = false;
  std::uint64_t seed = 0, first = 0;
};

Call parse_call(const std::string& text) {
  Call call;
  const auto at = text.find('@');
  call.variant = text.substr(0, at);
  if (at == std::string::npos) return call;
  const auto colon = text.find(':', at);
  if (colon == std::string::npos) throw Error("a fresh-input call needs 'variant@seed:index', got '" + text + "'");
  call.fresh = true;
  call.seed = std::strtoull(text.c_str() + at + 1, nullptr, 10);
  call.first = std::strtoull(text.c_str() + colon + 1, nullptr, 10);
  return call;
}

// One worker's state: the problem built by the last setup command and the arrays it was given.
class Worker {
 public:
  explicit Worker(ProblemFactory factory) : factory_(factory) {}

  // Returns false when the grader asked the worker to quit.
  bool serve(const json& command) {
    const std::string op = command.value("op", "");
    if (op == "hello") return hello();
    if (op == "setup") return setup(command);
    if (op == "run") return run(command);
    if (op == "inputs") return send_inputs();
    if (op == "time") return time(command);
    if (op == "quit") {
      channel_.send({{"type", "bye"}});
      return false;
    }
    return fail("protocol", "unknown op '" + op + "'");
  }

  bool fail(const char* stage, const std::string& message) {
    channel_.send({{"type", "error"}, {"stage", stage}, {"message", message}});
    return true;
  }

  Channel& channel() { return channel_; }

 private:
  bool hello() {
    auto probe = factory_();
    channel_.send({{"type", "hello"}, {"protocol", 1}, {"variants", probe->variants()}});
    return true;
  }

  bool setup(const json& command) {
    Params params;
    const json given = command.value("params", json::object());  // named: items() must not outlive it
    for (const auto& [key, value] : given.items()) params.set(key, value.get<double>());
    const auto seed = command.value("seed", std::uint64_t{0});

    // Every supplied array is read off the pipe before any is judged, so a bad one cannot leave the
    // stream out of step with the next command.
    supplied_storage_.clear();
    std::vector<ArrayRef> arrays;
    const json array_specs = command.value("arrays", json::array());
    for (const auto& spec : array_specs) {
      ArrayRef array;
      array.name = spec.at("name").get<std::string>();
      array.dtype = parse_dtype(spec.at("dtype").get<std::string>());
      array.shape = spec.at("shape").get<std::vector<std::int64_t>>();
      auto& bytes = supplied_storage_.emplace_back(spec.at("bytes").get<std::size_t>());
      channel_.read_bytes(bytes.data(), bytes.size());
      array.data = bytes.data();
      arrays.push_back(array);
    }
    std::map<std::string, ArrayRef> supplied;
    for (std::size_t i = 0; i < arrays.size(); ++i) {
      if (supplied_storage_[i].size() != arrays[i].bytes())
        return fail("setup", "array '" + arrays[i].name + "' has the wrong byte count for its shape");
      supplied[arrays[i].name] = arrays[i];
    }

    auto start = monotonic_nanoseconds();
    problem_ = factory_();
    Rng::allow_threads(problem_->may_start_threads());
    fresh_ = FreshInputs();
    Case c(std::move(params), seed, std::move(supplied));
    try {
      problem_->setup(c);
    } catch (const std::exception& e) {
      problem_.reset();
      return fail("setup", e.what());
    }
    channel_.send({{"type", "ready"}, {"seconds", seconds_since(start)}});
    return true;
  }

  bool require_problem() {
    if (problem_) return true;
    fail("protocol", "no successful setup before this command");
    return false;
  }

  // Fresh inputs for the call with index `index` of a fresh command; the inputs setup() built otherwise.
  void prepare_inputs(const Call& call, std::uint64_t index) {
    if (call.fresh) fresh_.apply(*problem_, call.seed, index);
    else if (!fresh_.pristine()) fresh_.apply(*problem_, 0, 0);
  }

  // A variant the harness does not define is the lab's mistake (a typo in lab.toml), never the student's: it
  // fails in its own stage, which the grader reports as the lab's internal error.
  std::string unknown_variant(const std::string& variant) const {
    const auto known = problem_->variants();
    if (std::find(known.begin(), known.end(), variant) != known.end()) return "";
    std::string list;
    for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
    return "the lab asks for variant '" + variant + "', which its harness does not define (it defines: " + list + ")";
  }

  bool run(const json& command) {
    if (!require_problem()) return true;
    auto start = monotonic_nanoseconds();
    try {
      const Call call = parse_call(command.value("variant", ""));
      if (const std::string unknown = unknown_variant(call.variant); !unknown.empty()) return fail("variant", unknown);
      prepare_inputs(call, call.first);
      const bool profiled = command.value("profile", false);
      start = monotonic_nanoseconds();
      problem_->poison();
      if (profiled) problem_->profile(true);
      problem_->run(call.variant);
      problem_->finish();
      if (profiled) problem_->profile(false);
    } catch (const std::exception& e) {
      return fail("run", e.what());
    }
    double elapsed = seconds_since(start);
    channel_.send({{"type", "outputs"}, {"seconds", elapsed}}, problem_->outputs());
    return true;
  }

  bool send_inputs() {
    if (!require_problem()) return true;
    channel_.send({{"type", "inputs"}}, problem_->inputs());
    return true;
  }

  bool time(const json& command) {
    if (!require_problem()) return true;
    const int warmup = command.value("warmup", 1);
    const int reps = command.value("reps", 1);
    std::vector<double> seconds;
    try {
      const Call call = parse_call(command.value("variant", ""));
      if (const std::string unknown = unknown_variant(call.variant); !unknown.empty()) return fail("variant", unknown);
      const std::string& variant = call.variant;
      std::uint64_t index = call.first;
      // Warm-up calls count too: each fresh call, warm or timed, has inputs of its own.
      for (int i = 0; i < warmup; ++i) {
        prepare_inputs(call, index++);
        problem_->poison();
        problem_->run(variant);
        problem_->finish();
      }
      for (int i = 0; i < reps; ++i) {
        prepare_inputs(call, index++);  // before the trial's own preparation: a GPU flush then follows it
        problem_->prepare_trial();
        problem_->poison();
        seconds.push_back(problem_->time_once(variant));
      }
    } catch (const std::exception& e) {
      return fail("run", e.what());
    }
    // After the last timed call: did the outputs move once the call had returned (work left running in
    // the background), and is any thread the call started still running? Not asked of a process that runs the
    // lab's code alone (the judge: "checks": false), whose answers nobody reads: for lab 7 they were two copies of
    // a 64 MB C off the GPU and two fingerprints of it per command, for lab 6's tall shape of a 256 MB y.
    json reply = {{"type", "times"}, {"seconds", seconds}};
    std::vector<ArrayRef> settled;  // the outputs once finish() returned: what is checked, and what is sent
    if (command.value("checks", true)) {
      const std::uint64_t when_returned = fingerprint(problem_->outputs());
      problem_->finish();
      reply["busy_threads"] = threads_still_running();
      settled = problem_->outputs();
      reply["outputs_changed"] = fingerprint(settled) != when_returned;
    } else {
      problem_->finish();
      reply["busy_threads"] = 0;
      reply["outputs_changed"] = false;
    }
    if (command.value("outputs", false)) {
      // Read once more only where the checks did not read them (a GPU harness copies them off the device).
      channel_.send(reply, settled.empty() ? problem_->outputs() : settled);
    } else {
      channel_.send(reply);
    }
    return true;
  }

  ProblemFactory factory_;
  Channel channel_;
  std::unique_ptr<Problem> problem_;
  FreshInputs fresh_;
  std::vector<std::vector<char>> supplied_storage_;
};

}  // namespace

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
  }
  return "?";
}

std::int64_t Params::integer(std::string_view key) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) throw Error("the case has no parameter '" + std::string(key) + "'");
  return static_cast<std::int64_t>(std::llround(it->second));
}
std::int64_t Params::integer(std::string_view key, std::int64_t fallback) const {
  return has(key) ? integer(key) : fallback;
}
double Params::real(std::string_view key) const {
  auto it = values_.find(std::string(key));
  if (it == values_.end()) throw Error("the case has no parameter '" + std::string(key) + "'");
  return it->second;
}
double Params::real(std::string_view key, double fallback) const { return has(key) ? real(key) : fallback; }

const ArrayRef* Case::supplied(std::string_view name) const {
  auto it = supplied_.find(std::string(name));
  return it == supplied_.end() ? nullptr : &it->second;
}

void Case::check_supplied(const ArrayRef& given, DType dtype, const std::vector<std::int64_t>& shape) const {
  if (given.dtype != dtype || given.shape != shape)
    throw Error("supplied array '" + given.name + "' does not have the dtype and shape the case's parameters give");
}

double Problem::time_once(std::string_view variant) {
  auto start = monotonic_nanoseconds();
  run(variant);
  finish();
  return seconds_since(start);
}

bool register_problem(ProblemFactory factory) {
  registered_factory() = factory;
  return true;
}

}  // namespace labkit

int main() {
  auto factory = labkit::registered_factory();
  if (factory == nullptr) {
    std::fprintf(stderr, "labkit: the harness registered no problem (LABKIT_PROBLEM missing)\n");
    return 2;
  }
  if (::fcntl(3, F_GETFD) < 0 || ::fcntl(4, F_GETFD) < 0) {
    std::fprintf(stderr, "labkit: this program is a grader worker; run it through `grader`, not by hand\n");
    return 2;
  }
  labkit::Worker worker(factory);
  std::string line;
  while (worker.channel().read_line(line)) {
    nlohmann::json command;
    try {
      command = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      worker.fail("protocol", std::string("unreadable command: ") + e.what());
      continue;
    }
    try {
      if (!worker.serve(command)) return 0;
    } catch (const std::exception& e) {
      worker.fail("protocol", e.what());
    }
  }
  return 0;
}
