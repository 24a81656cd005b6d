// child_start.cpp: fork, set up and exec one untrusted child (see child_start.h for the order of the steps).
#include "run/child_start.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <utility>

#include "run/procfs.h"
#include "run/reaper.h"
#include "run/unprivileged.h"

namespace grader {
namespace {

using Clock = std::chrono::steady_clock;

// Where the child finds its channels (see grader/labkit/worker_protocol.md). kStartErrorFd carries a failure
// to start back to the grader; it is close-on-exec, so a successful execve closes it.
constexpr int kCommandFd = 3;
constexpr int kReplyFd = 4;
constexpr int kStartErrorFd = 5;
// Five fds for stdin, stdout, stderr and the two channels, plus room for the dynamic loader and libc.
constexpr int kMinOpenFiles = 8;
// Arrays travel through the channels: larger pipes mean fewer context switches per array.
constexpr int kChannelPipeBytes = 1 << 20;
// A fork that fails with EAGAIN (the machine's processes, or the grader's, at a limit) is tried again after these
// pauses, doubling: about 3 s in all.
constexpr auto kForkRetryFirstPause = std::chrono::milliseconds(25);
constexpr auto kForkRetryLastPause = std::chrono::milliseconds(1600);

// The step of starting the child that failed, as the child reports it.
enum class StartStep : int { join_cgroup, redirect, enter_workdir, enter_network, set_limits, drop_privileges, exec };

const char* describe(StartStep step) {
  switch (step) {
    case StartStep::join_cgroup: return "entering its memory cgroup";
    case StartStep::redirect: return "placing its file descriptors";
    case StartStep::enter_workdir: return "entering its work directory";
    case StartStep::enter_network: return "entering a network namespace of its own";
    case StartStep::set_limits: return "setting its resource limits";
    case StartStep::drop_privileges: return "dropping to its unprivileged user";
    case StartStep::exec: return "executing it";
  }
  return "starting it";
}

// Who a root grader's workers run as when no user id of their own can be leased (run/worker_uid.h).
constexpr UnprivilegedUser kSharedWorkerUser{65534, 65534, "nobody"};

struct StartFailure {
  StartStep step;
  int error;
};

// An owned file descriptor, so that launch() leaks nothing when it throws halfway.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    reset(std::exchange(other.fd_, -1));
    return *this;
  }
  ~Fd() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read_end, write_end;
};

Pipe make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
  return {Fd(fds[0]), Fd(fds[1])};
}

// Once per grader process: writing to a child that has gone must be an EPIPE error, not our death by
// SIGPIPE; and orphans of a child's group must be reparented to us so that we can reap them.
void prepare_grader_process() {
  static std::once_flag once;
  std::call_once(once, [] {
    signal(SIGPIPE, SIG_IGN);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
  });
}

// The path execve gets. A bare name is looked up in the child's PATH (the only environment that counts: ours
// is not inherited); a relative path is taken from the grader's working directory, not the child's workdir.
std::string resolve_program(const std::string& name, const std::map<std::string, std::string>& environment) {
  if (name.find('/') != std::string::npos) return std::filesystem::absolute(name).string();
  const auto path = environment.find("PATH");
  if (path == environment.end()) return name;
  std::string_view dirs = path->second;
  while (true) {
    const auto colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    const std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return name;  // execve will fail with ENOENT, reported as usual
    dirs.remove_prefix(colon + 1);
  }
}

struct Rlimit {
  int resource;
  rlimit value;
};

// Without CAP_SYS_RESOURCE (even root in a container may lack it) a hard limit can only be lowered: a limit
// above our own is asked for as our own, rather than failing every launch.
Rlimit capped(int resource, rlim_t soft, rlim_t hard) {
  rlimit current = {RLIM_INFINITY, RLIM_INFINITY};
  getrlimit(resource, &current);
  hard = std::min(hard, current.rlim_max);
  return {resource, {std::min(soft, hard), hard}};
}

std::vector<Rlimit> rlimits_for(const ProcessLimits& limits, long tasks_already_running) {
  const auto cpu = static_cast<rlim_t>(std::ceil(limits.cpu_seconds));
  const auto tasks = static_cast<rlim_t>(tasks_already_running + limits.processes);
  const auto open_files = static_cast<rlim_t>(limits.open_files);
  std::vector<Rlimit> result = {
      capped(RLIMIT_CPU, cpu, cpu + 1),  // SIGXCPU at the soft limit; SIGKILL a second later if it is caught
      capped(RLIMIT_NPROC, tasks, tasks),
      capped(RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes),
      capped(RLIMIT_NOFILE, open_files, open_files),
      capped(RLIMIT_CORE, 0, 0),
  };
  if (limits.limit_address_space && limits.memory_bytes > 0) {
    result.push_back(capped(RLIMIT_AS, limits.memory_bytes, limits.memory_bytes));
  }
  return result;
}

// Everything the child needs, prepared before fork(): after it, the child may only make async-signal-safe
// calls (another grader thread may have held the allocator's lock when we forked), so nothing is built there.
struct ChildPlan {
  std::string program;
  std::vector<std::string> argument_storage, environment_storage;
  std::vector<char*> argv, envp;
  std::string workdir;
  std::vector<Rlimit> rlimits;
  std::optional<UnprivilegedUser> user;  // who the child becomes; none when the grader is not root
  int cgroup_procs_fd = -1;             // the memory cgroup it joins, if any
  bool own_network = false;             // LaunchOptions::own_network
  int fds[kReplyFd + 1] = {-1, -1, -1, -1, -1};  // fds[n] becomes the child's fd n
  int start_error_fd = -1;
};

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

[[noreturn]] void report_start_failure(int fd, StartStep step) {
  const StartFailure failure{step, errno};
  [[maybe_unused]] const ssize_t ignored = write(fd, &failure, sizeof failure);
  _exit(127);
}

// A new network namespace for this process, its loopback up: 127.0.0.1 reaches only what runs in it (a new
// namespace's loopback starts down). Plain system calls, safe between fork and exec.
bool enter_own_network() {
  if (unshare(CLONE_NEWNET) != 0) return false;
  const int probe = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (probe < 0) return false;
  struct ifreq loopback = {};
  std::memcpy(loopback.ifr_name, "lo", 3);
  bool up = ioctl(probe, SIOCGIFFLAGS, &loopback) == 0;
  loopback.ifr_flags = static_cast<short>(loopback.ifr_flags | IFF_UP | IFF_RUNNING);
  up = up && ioctl(probe, SIOCSIFFLAGS, &loopback) == 0;
  close(probe);
  return up;
}

// Runs in the forked child: async-signal-safe calls only, and it never returns.
[[noreturn]] void become_child(const ChildPlan& plan) {
  setpgid(0, 0);
  // First, while every descriptor is where the plan says: whatever the child starts from here on is charged there.
  if (plan.cgroup_procs_fd >= 0 && write(plan.cgroup_procs_fd, "0", 1) != 1)
    report_start_failure(plan.start_error_fd, StartStep::join_cgroup);

  // Ignored signals and the signal mask survive execve; the grader ignores SIGPIPE and may block others.
  struct sigaction default_action = {};
  default_action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &default_action, nullptr);
  sigset_t nothing;
  sigemptyset(&nothing);
  sigprocmask(SIG_SETMASK, &nothing, nullptr);

  // Lift every source above fd 5 first: a pipe end may itself be numbered 0-5, and dup2 onto it would lose it.
  constexpr int kAboveTargets = 16;
  const int error_fd = fcntl(plan.start_error_fd, F_DUPFD_CLOEXEC, kAboveTargets);
  if (error_fd < 0) report_start_failure(plan.start_error_fd, StartStep::redirect);
  int lifted[kReplyFd + 1];
  for (int target = 0; target <= kReplyFd; ++target) {
    lifted[target] = fcntl(plan.fds[target], F_DUPFD_CLOEXEC, kAboveTargets);
    if (lifted[target] < 0) report_start_failure(error_fd, StartStep::redirect);
  }
  for (int target = 0; target <= kReplyFd; ++target) {
    if (dup2(lifted[target], target) < 0) report_start_failure(error_fd, StartStep::redirect);  // clears cloexec
  }
  if (dup3(error_fd, kStartErrorFd, O_CLOEXEC) < 0) report_start_failure(error_fd, StartStep::redirect);
  close_descriptors_from(kStartErrorFd + 1);

  if (chdir(plan.workdir.c_str()) != 0) report_start_failure(kStartErrorFd, StartStep::enter_workdir);
  if (plan.own_network && !enter_own_network()) report_start_failure(kStartErrorFd, StartStep::enter_network);
  for (const Rlimit& limit : plan.rlimits) {
    if (setrlimit(limit.resource, &limit.value) != 0) report_start_failure(kStartErrorFd, StartStep::set_limits);
  }
  // Root ignores RLIMIT_NPROC: the process limit only holds for an unprivileged user.
  if (plan.user && !become(*plan.user)) {
    report_start_failure(kStartErrorFd, StartStep::drop_privileges);
  }
  execve(plan.program.c_str(), plan.argv.data(), plan.envp.data());
  report_start_failure(kStartErrorFd, StartStep::exec);
}

void check_options(const LaunchOptions& options) {
  const ProcessLimits& limits = options.limits;
  if (options.argv.empty()) throw std::invalid_argument("launch: argv is empty");
  if (!(limits.wall_seconds > 0) || !(limits.cpu_seconds > 0)) {
    throw std::invalid_argument("launch: the wall and CPU time limits must be positive");
  }
  if (limits.processes < 1) throw std::invalid_argument("launch: the process limit must be at least 1");
  if (limits.open_files < kMinOpenFiles) {
    throw std::invalid_argument("launch: the open-file limit must be at least " + std::to_string(kMinOpenFiles));
  }
}

}  // namespace

StartedChild start_child(const LaunchOptions& options) {
  check_options(options);
  prepare_grader_process();

  ChildPlan plan;
  plan.argument_storage = options.wrapper;
  plan.argument_storage.insert(plan.argument_storage.end(), options.argv.begin(), options.argv.end());
  const std::string& shown_name = plan.argument_storage.front();
  plan.program = resolve_program(shown_name, options.environment);
  plan.argv = c_strings(plan.argument_storage);
  for (const auto& [name, value] : options.environment) plan.environment_storage.push_back(name + "=" + value);
  plan.envp = c_strings(plan.environment_storage);
  plan.workdir = options.workdir.string();
  plan.own_network = options.own_network;
  StartedChild child;
  if (drops_privileges()) {
    try {
      child.user = WorkerUid::lease();
      plan.user = child.user->user();
    } catch (const std::runtime_error& error) {
      // Better a grading whose process limit is shared, as before leases, than none at all; said once.
      static std::once_flag warned;
      std::call_once(warned, [&] { std::cerr << "grader: warning: " << error.what() << "; workers run as nobody\n"; });
      plan.user = kSharedWorkerUser;
    }
  }
  if (options.limits.memory_bytes > 0) child.memory = MemoryCgroup::create(options.limits.memory_bytes);
  if (child.memory) plan.cgroup_procs_fd = child.memory->procs_fd();
  // The user's tasks now: a leased id's are none, unless a worker of a grader killed outright still runs as it.
  plan.rlimits = rlimits_for(options.limits, procfs::tasks_of_user(plan.user ? plan.user->uid : getuid()));
  if (plan.user && chown(plan.workdir.c_str(), plan.user->uid, plan.user->gid) != 0) {
    throw std::system_error(errno, std::generic_category(), "cannot give work directory " + plan.workdir + " to the worker's user");
  }

  Fd dev_null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (dev_null.get() < 0) throw std::system_error(errno, std::generic_category(), "open /dev/null");
  Pipe commands = make_pipe(), replies = make_pipe(), out = make_pipe(), err = make_pipe(), start_errors = make_pipe();
  fcntl(commands.write_end.get(), F_SETPIPE_SZ, kChannelPipeBytes);  // best effort: the default size also works
  fcntl(replies.write_end.get(), F_SETPIPE_SZ, kChannelPipeBytes);
  plan.fds[STDIN_FILENO] = dev_null.get();
  plan.fds[STDOUT_FILENO] = out.write_end.get();
  plan.fds[STDERR_FILENO] = err.write_end.get();
  plan.fds[kCommandFd] = commands.read_end.get();
  plan.fds[kReplyFd] = replies.write_end.get();
  plan.start_error_fd = start_errors.write_end.get();

  const auto started = Clock::now();
  pid_t pid = -1;
  for (auto pause = kForkRetryFirstPause;; pause *= 2) {
    auto registering = started_children_lock();
    pid = fork();
    if (pid == 0) become_child(plan);
    if (pid > 0) {
      register_started_child(pid);
      break;
    }
    const int error = errno;
    registering.unlock();
    if (error != EAGAIN || pause > kForkRetryLastPause)
      throw std::system_error(error, std::generic_category(), "the grading machine cannot fork for " + shown_name);
    std::this_thread::sleep_for(pause);
  }

  setpgid(pid, pid);  // the child does it too; whichever runs first, the group exists before we signal it
  dev_null.reset();
  out.write_end.reset();
  err.write_end.reset();
  commands.read_end.reset();
  replies.write_end.reset();
  start_errors.write_end.reset();

  // The start-error pipe reads end-of-file when execve succeeds, and (step, errno) when anything failed.
  StartFailure failure{};
  ssize_t got;
  do got = read(start_errors.read_end.get(), &failure, sizeof failure);
  while (got < 0 && errno == EINTR);
  if (got != 0) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    forget_started_child(pid);
    const int error = got == static_cast<ssize_t>(sizeof failure) ? failure.error : EIO;
    throw std::system_error(error, std::generic_category(), "cannot start " + shown_name + ": " + describe(failure.step));
  }

  child.pid = pid;
  child.started = started;
  child.command_fd = commands.write_end.release();
  child.reply_fd = replies.read_end.release();
  child.stdout_fd = out.read_end.release();
  child.stderr_fd = err.read_end.release();
  return child;
}

}  // namespace grader
