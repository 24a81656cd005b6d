// The lab kit's main(): serves the worker protocol (worker_protocol.md) for the problem the harness
// registered. Linked into every candidate and judge; compiled once per lab and flags.
#include <labkit/labkit.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace labkit {

namespace {

using json = nlohmann::json;

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

// FNV-1a over every output byte: enough to notice an output that changes after the call returned.
std::uint64_t fingerprint(const std::vector<ArrayRef>& arrays) {
  std::uint64_t hash = 1469598103934665603ULL;
  for (const auto& a : arrays) {
    const auto* bytes = static_cast<const unsigned char*>(a.data);
    for (std::size_t i = 0; i < a.bytes(); ++i) hash = (hash ^ bytes[i]) * 1099511628211ULL;
  }
  return hash;
}

// Threads of this process, other than the one calling, that are running right now. Sampled a few times
// over a few milliseconds: a thread counts only if it is running in every sample, so one that is just
// going to sleep does not.
int threads_still_running() {
  std::map<std::string, int> running;
  constexpr int samples = 3;
  const std::string self = std::to_string(::syscall(SYS_gettid));
  for (int sample = 0; sample < samples; ++sample) {
    if (DIR* tasks = ::opendir("/proc/self/task")) {
      while (dirent* task = ::readdir(tasks)) {
        const std::string tid = task->d_name;
        if (tid == "." || tid == ".." || tid == self) continue;
        std::ifstream stat("/proc/self/task/" + tid + "/stat");
        std::string line;
        std::getline(stat, line);
        // The state letter follows the command name's closing parenthesis.
        auto paren = line.rfind(')');
        if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'R') ++running[tid];
      }
      ::closedir(tasks);
    }
    ::usleep(1000);
  }
  int count = 0;
  for (const auto& [tid, times] : running) count += times == samples;
  return count;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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

    auto start = std::chrono::steady_clock::now();
    problem_ = factory_();
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

  bool run(const json& command) {
    if (!require_problem()) return true;
    const std::string variant = command.value("variant", "");
    auto start = std::chrono::steady_clock::now();
    try {
      problem_->poison();
      problem_->run(variant);
      problem_->finish();
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
    const std::string variant = command.value("variant", "");
    const int warmup = command.value("warmup", 1);
    const int reps = command.value("reps", 1);
    std::vector<double> seconds;
    try {
      for (int i = 0; i < warmup; ++i) {
        problem_->poison();
        problem_->run(variant);
        problem_->finish();
      }
      for (int i = 0; i < reps; ++i) {
        problem_->prepare_trial();
        problem_->poison();
        seconds.push_back(problem_->time_once(variant));
      }
    } catch (const std::exception& e) {
      return fail("run", e.what());
    }
    // After the last timed call: did the outputs move once the call had returned (work left running in
    // the background), and is any thread the call started still running?
    json reply = {{"type", "times"}, {"seconds", seconds}};
    const std::uint64_t when_returned = fingerprint(problem_->outputs());
    problem_->finish();
    reply["busy_threads"] = threads_still_running();
    reply["outputs_changed"] = fingerprint(problem_->outputs()) != when_returned;
    if (command.value("outputs", false)) {
      channel_.send(reply, problem_->outputs());
    } else {
      channel_.send(reply);
    }
    return true;
  }

  ProblemFactory factory_;
  Channel channel_;
  std::unique_ptr<Problem> problem_;
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

Rng::Rng(std::uint64_t seed) {
  for (auto& word : s_) {  // splitmix64
    seed += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = seed;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    word = z ^ (z >> 31);
  }
}

std::uint64_t Rng::next() {
  auto rotl = [](std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); };
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

const ArrayRef* Case::supplied(std::string_view name) const {
  auto it = supplied_.find(std::string(name));
  return it == supplied_.end() ? nullptr : &it->second;
}

void Case::check_supplied(const ArrayRef& given, DType dtype, const std::vector<std::int64_t>& shape) const {
  if (given.dtype != dtype || given.shape != shape)
    throw Error("supplied array '" + given.name + "' does not have the dtype and shape the case's parameters give");
}

double Problem::time_once(std::string_view variant) {
  auto start = std::chrono::steady_clock::now();
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
