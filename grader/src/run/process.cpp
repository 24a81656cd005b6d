// process.cpp: one untrusted child under limits once it runs: talking to it over fds 3 and 4, and ending it.
// Starting it is run/child_start.cpp's job.
//
// Waiting: every wait is one poll() loop (wait_for) that also drains stdout and stderr and enforces the wall,
// memory and output limits, so no caller can forget them and a child blocked on a full stdout pipe never
// deadlocks a grader blocked on fd 4.
//
// Ending: the child's tree and group are always killed while the leader is still unreaped (an unreaped leader
// holds its pid, so the group id cannot have been reused), then the leader is reaped with its rusage, then
// whatever it left behind (run/reaper.h): we are a child subreaper, so its orphans, in whatever session, come
// back to us rather than to an init that may never reap them; they are killed and reaped, so none runs on
// beside the next grading or counts against the next child's process limit.
#include "run/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include "run/child_start.h"
#include "run/procfs.h"
#include "run/reaper.h"

namespace grader {
namespace {

using Clock = std::chrono::steady_clock;

// How often a wait wakes to sample the group's resident memory when memory is limited by polling.
constexpr auto kRssPollTick = std::chrono::milliseconds(50);
// How often a wait wakes to measure the files the child has written. A file system of the sandbox's own refuses
// writes past the budget anyway (run/sandbox.h); this names the verdict.
constexpr auto kWrittenPollTick = std::chrono::milliseconds(100);
// Without a pidfd, how often finish() looks whether the child has exited.
constexpr auto kExitPollTick = std::chrono::milliseconds(10);
// A reply line is one JSON message; one longer than this is a child trying to exhaust our memory.
constexpr std::size_t kMaxReplyLineBytes = 1u << 20;
constexpr std::size_t kChunkBytes = 64 * 1024;

// --- Waiting and ending -----------------------------------------------------------------------------------

void set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    throw std::system_error(errno, std::generic_category(), "fcntl(O_NONBLOCK)");
  }
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}


// A time `span` after `from`; spans beyond any real wait are clamped so the conversion cannot overflow.
Clock::time_point after(std::chrono::duration<double> span, Clock::time_point from = Clock::now()) {
  constexpr double kLongestSeconds = 1e7;
  const double seconds = span.count() > 0 ? std::min(span.count(), kLongestSeconds) : 0.0;
  return from + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

timespec to_timespec(Clock::duration span) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::max(span, Clock::duration::zero()));
  return {static_cast<time_t>(ns.count() / 1'000'000'000), static_cast<long>(ns.count() % 1'000'000'000)};
}

// Moves what `fd` holds now into `into`, keeping at most `cap` bytes. False once more than `cap` came.
bool drain_stream(int& fd, std::string& into, std::size_t cap, bool& truncated) {
  char chunk[kChunkBytes];
  while (fd >= 0) {
    const ssize_t got = read(fd, chunk, sizeof chunk);
    if (got > 0) {
      const std::size_t room = cap - std::min(cap, into.size());
      into.append(chunk, std::min(room, static_cast<std::size_t>(got)));
      if (static_cast<std::size_t>(got) > room) {
        truncated = true;
        return false;
      }
    } else if (got == 0) {
      close_fd(fd);
    } else if (errno != EINTR) {
      break;  // EAGAIN: nothing more for now
    }
  }
  return true;
}

double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; }

// How a reaped child ended. `cause` is the limit we killed it for, or running when we did not.
// `wrapped`: the child is a wrapper (bubblewrap) that exits with 128 + N when the program it runs dies of
// signal N; that is read as the signal, so a segfault in the sandbox is still a crash and SIGXCPU a time limit.
Ending describe_ending(int status, const rusage& usage, Ending::Kind cause, const ProcessLimits& limits, bool wrapped) {
  Ending ending;
  ending.cpu_seconds = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  ending.max_rss_bytes = static_cast<std::size_t>(usage.ru_maxrss) * 1024;  // Linux reports kilobytes
  if (WIFEXITED(status)) ending.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    ending.signal = WTERMSIG(status);
  } else if (wrapped && WIFEXITED(status) && ending.exit_code > 128 && ending.exit_code <= 128 + 64) {
    ending.signal = ending.exit_code - 128;
  }
  if (ending.signal != 0) ending.signal_name = signal_name(ending.signal);
  if (cause != Ending::Kind::running) {
    ending.kind = cause;
  } else if (ending.signal == 0) {
    ending.kind = Ending::Kind::exited;
  } else if (ending.signal == SIGXCPU || (ending.signal == SIGKILL && ending.cpu_seconds >= limits.cpu_seconds)) {
    ending.kind = Ending::Kind::cpu_timeout;  // SIGKILL: the hard CPU limit, for a child that caught SIGXCPU
  } else {
    ending.kind = Ending::Kind::signaled;
  }
  return ending;
}

}  // namespace

// --- ChildProcess -----------------------------------------------------------------------------------------

ChildProcess ChildProcess::launch(const LaunchOptions& options) {
  StartedChild started = start_child(options);
  ChildProcess child;
  child.user_ = std::move(started.user);
  child.memory_ = std::move(started.memory);
  child.written_ = WrittenFiles(started.pid, options.workdir, !options.wrapper.empty());
  child.next_written_check_ = started.started;
  child.pid_ = started.pid;
  child.started_ = started.started;
  child.limits_ = options.limits;
  child.wrapped_ = !options.wrapper.empty();
  child.wall_deadline_ = after(std::chrono::duration<double>(options.limits.wall_seconds), started.started);
  child.next_rss_check_ = started.started;
  child.command_fd_ = started.command_fd;
  child.reply_fd_ = started.reply_fd;
  child.stdout_fd_ = started.stdout_fd;
  child.stderr_fd_ = started.stderr_fd;
  for (int fd : {child.command_fd_, child.reply_fd_, child.stdout_fd_, child.stderr_fd_}) set_nonblocking(fd);
#ifdef SYS_pidfd_open
  child.pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, started.pid, 0));  // close-on-exec by definition
#endif
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept { *this = std::move(other); }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this == &other) return *this;
  release();
  pid_ = std::exchange(other.pid_, -1);
  command_fd_ = std::exchange(other.command_fd_, -1);
  reply_fd_ = std::exchange(other.reply_fd_, -1);
  stdout_fd_ = std::exchange(other.stdout_fd_, -1);
  stderr_fd_ = std::exchange(other.stderr_fd_, -1);
  pidfd_ = std::exchange(other.pidfd_, -1);
  started_ = other.started_;
  wall_deadline_ = other.wall_deadline_;
  next_rss_check_ = other.next_rss_check_;
  next_written_check_ = other.next_written_check_;
  written_ = std::move(other.written_);
  user_ = std::move(other.user_);
  memory_ = std::move(other.memory_);
  other.user_.reset();
  other.memory_.reset();
  replied_ = other.replied_;
  limits_ = other.limits_;
  stdout_ = std::move(other.stdout_);
  stderr_ = std::move(other.stderr_);
  reply_buffer_ = std::move(other.reply_buffer_);
  output_truncated_ = other.output_truncated_;
  wrapped_ = other.wrapped_;
  reaped_ = other.reaped_;
  ending_ = std::move(other.ending_);
  return *this;
}

ChildProcess::~ChildProcess() { release(); }

void ChildProcess::release() noexcept {
  if (pid_ > 0 && !reaped_) end(Ending::Kind::running);
  for (int* fd : {&command_fd_, &reply_fd_, &stdout_fd_, &stderr_fd_, &pidfd_}) close_fd(*fd);
}

double ChildProcess::elapsed_seconds() const {
  return std::chrono::duration<double>(Clock::now() - started_).count();
}

bool ChildProcess::send(std::string_view bytes) {
  while (!bytes.empty()) {
    if (reaped_ || command_fd_ < 0) return false;
    if (Clock::now() >= wall_deadline_) {
      end(Ending::Kind::wall_timeout);
      return false;
    }
    const ssize_t written = write(command_fd_, bytes.data(), bytes.size());
    if (written > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(written));
    } else if (errno == EAGAIN) {
      // No deadline of its own: a child that never reads its commands runs into the wall limit.
      if (wait_for(command_fd_, POLLOUT, wall_deadline_) != Woke::ready) return false;
    } else if (errno != EINTR) {
      return false;  // EPIPE: the child closed fd 3 or has gone
    }
  }
  return true;
}

ReadStatus ChildProcess::read_line(std::string& line, std::chrono::duration<double> timeout) {
  const auto deadline = after(timeout);
  std::size_t searched = 0;
  bool read_now = false;  // a line already buffered was received, and measured, with an earlier answer
  while (true) {
    const auto newline = reply_buffer_.find('\n', searched);
    if (newline != std::string::npos) {
      if (read_now && !within_written_budget()) return ReadStatus::killed;
      line.assign(reply_buffer_, 0, newline);
      reply_buffer_.erase(0, newline + 1);
      return ReadStatus::ok;
    }
    searched = reply_buffer_.size();
    if (searched > kMaxReplyLineBytes && !reaped_) {
      end(Ending::Kind::output_limit);
      return ReadStatus::killed;
    }
    char chunk[kChunkBytes];
    std::size_t received = 0;
    const ReadStatus status = receive(chunk, sizeof chunk, received, deadline);
    if (status != ReadStatus::ok) return status;
    reply_buffer_.append(chunk, received);
    read_now = true;
  }
}

ReadStatus ChildProcess::read_exact(void* into, std::size_t count, std::chrono::duration<double> timeout) {
  const auto deadline = after(timeout);
  char* out = static_cast<char*>(into);
  std::size_t done = std::min(count, reply_buffer_.size());
  const std::size_t buffered = done;
  std::memcpy(out, reply_buffer_.data(), done);
  reply_buffer_.erase(0, done);
  while (done < count) {
    std::size_t received = 0;
    const ReadStatus status = receive(out + done, count - done, received, deadline);
    if (status != ReadStatus::ok) {
      reply_buffer_.insert(0, out, done);  // nothing is consumed by a read that did not complete
      return status;
    }
    done += received;
  }
  if (done > buffered && !within_written_budget()) return ReadStatus::killed;
  return ReadStatus::ok;
}

// Reads what fd 4 has (at least one byte) into `into`, waiting for it until `deadline`.
ReadStatus ChildProcess::receive(char* into, std::size_t capacity, std::size_t& received, Clock::time_point deadline) {
  while (true) {
    if (killed_for_limit()) return ReadStatus::killed;
    if (reply_fd_ < 0) return ReadStatus::closed;
    const ssize_t got = read(reply_fd_, into, capacity);
    if (got > 0) {
      replied_ = true;
      // Within a long answer, as often as a wait measures them; each answer is measured once more as it ends
      // (read_line, read_exact). Not with every read: a pipe gives 64 KiB a read, and measuring the files after
      // each read of lab 6's 256 MiB y (4096 of them) cost a second per timed round on an H100.
      if (limits_.written_bytes > 0 && Clock::now() >= next_written_check_) {
        next_written_check_ = Clock::now() + kWrittenPollTick;
        if (!within_written_budget()) return ReadStatus::killed;
      }
      received = static_cast<std::size_t>(got);
      return ReadStatus::ok;
    }
    if (got == 0) {
      close_fd(reply_fd_);
      return ReadStatus::closed;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN) throw std::system_error(errno, std::generic_category(), "reading the reply pipe");
    switch (wait_for(reply_fd_, POLLIN, deadline)) {
      case Woke::ready: break;
      case Woke::deadline: return ReadStatus::deadline;
      case Woke::killed: return ReadStatus::killed;
    }
  }
}

const Ending& ChildProcess::finish(std::chrono::duration<double> grace) {
  close_fd(command_fd_);  // end of commands: a worker reading fd 3 sees end-of-file and exits
  const auto give_up = after(grace);
  while (!reaped_ && !has_exited() && Clock::now() < give_up) {
    wait_for(pidfd_, POLLIN, pidfd_ >= 0 ? give_up : std::min(give_up, Clock::now() + kExitPollTick));
  }
  end(Ending::Kind::running);
  return ending_;
}

const Ending& ChildProcess::kill() {
  end(Ending::Kind::running);
  return ending_;
}

ChildProcess::Woke ChildProcess::wait_for(int fd, short events, Clock::time_point deadline) {
  const bool poll_rss = !limits_.limit_address_space && limits_.memory_bytes > 0;
  const bool poll_written = limits_.written_bytes > 0;
  // Ending the child closes fds (perhaps the one we wait on), so the wait is over either way. Woke::ready
  // when it had already exited by itself: the caller's next read or write finds out how.
  const auto stop_for = [this](Ending::Kind limit) {
    end(limit);
    return killed_for_limit() ? Woke::killed : Woke::ready;
  };
  while (true) {
    const auto now = Clock::now();
    if (!reaped_ && now >= wall_deadline_) return stop_for(Ending::Kind::wall_timeout);
    if (!reaped_ && poll_rss && now >= next_rss_check_) {
      next_rss_check_ = now + kRssPollTick;
      if (procfs::group_rss_bytes(pid_) > limits_.memory_bytes) return stop_for(Ending::Kind::memory_limit);
    }
    if (!reaped_ && poll_written && now >= next_written_check_) {
      next_written_check_ = now + kWrittenPollTick;
      if (written_.bytes() >= limits_.written_bytes) return stop_for(Ending::Kind::written_limit);
    }
    if (now >= deadline) return Woke::deadline;

    auto wake = deadline;
    if (!reaped_) wake = std::min(wake, wall_deadline_);
    if (!reaped_ && poll_rss) wake = std::min(wake, next_rss_check_);
    if (!reaped_ && poll_written) wake = std::min(wake, next_written_check_);
    pollfd fds[3] = {{fd, events, 0}, {stdout_fd_, POLLIN, 0}, {stderr_fd_, POLLIN, 0}};  // poll skips fds < 0
    const timespec timeout = to_timespec(wake - now);
    if (ppoll(fds, 3, &timeout, nullptr) < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "poll on the child's pipes");
    }
    if ((fds[1].revents != 0 || fds[2].revents != 0) && !drain_output() && !reaped_) {
      return stop_for(Ending::Kind::output_limit);
    }
    if (fd >= 0 && fds[0].revents != 0) return Woke::ready;  // POLLHUP and POLLERR too: the next call sees why
  }
}

// Moves the child's stdout and stderr into their buffers. False once either has passed the output cap.
bool ChildProcess::drain_output() {
  const bool out_fits = drain_stream(stdout_fd_, stdout_, limits_.output_bytes, output_truncated_);
  const bool err_fits = drain_stream(stderr_fd_, stderr_, limits_.output_bytes, output_truncated_);
  return out_fits && err_fits;
}

// Whether the leader has terminated, without reaping it (so its pid, and the group's id, stay ours).
bool ChildProcess::has_exited() const {
  siginfo_t info = {};
  return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_;
}

// Measured with every answer: a call that writes its files and answers within one poll's tick is caught before its
// answer counts. False once the child has been ended for them.
bool ChildProcess::within_written_budget() {
  if (limits_.written_bytes == 0 || written_.bytes() < limits_.written_bytes) return true;
  end(Ending::Kind::written_limit);
  return false;
}

bool ChildProcess::killed_for_limit() const {
  using Kind = Ending::Kind;
  return reaped_ && (ending_.kind == Kind::wall_timeout || ending_.kind == Kind::memory_limit ||
                     ending_.kind == Kind::output_limit || ending_.kind == Kind::written_limit);
}

// Ends the child for `cause` (running: not for a limit), or records how it already ended by itself.
void ChildProcess::end(Ending::Kind cause) {
  if (reaped_ || pid_ <= 0) return;
  if (has_exited()) cause = Ending::Kind::running;  // it ended before the limit could matter
  // The sandbox's files go with it: measured once more while they are there.
  if (cause == Ending::Kind::running && limits_.written_bytes > 0 && written_.bytes() >= limits_.written_bytes)
    cause = Ending::Kind::written_limit;
  // Its whole tree is read while the leader still holds it together (a descendant that left the group with
  // setsid is still below it), but the leader dies first: a shell whose child died first would exit by itself
  // and hide our SIGKILL. What escapes both (its parent died first) is reaped below.
  const std::vector<pid_t> descendants = procfs::descendants_of(pid_);
  // Their own time, read before they die: what a sandbox's namespace reaps is lost to our accounting (reaper.h).
  // The leader's is not (we reap it), nor what a descendant reaped from its own children (its cutime).
  record_unaccounted_cpu(procfs::own_cpu_seconds(descendants));
  ::kill(-pid_, SIGKILL);  // the leader is unreaped: -pid_ is still its group
  ::kill(pid_, SIGKILL);   // and the leader itself, should it have left its group
  for (const pid_t descendant : descendants) ::kill(descendant, SIGKILL);
  int status = 0;
  rusage usage = {};
  while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  forget_started_child(pid_);
  // As a subreaper we are the parent of every orphan it left: they are killed and reaped here, never left to
  // count against the next worker's process limit or to run on beside its timing.
  reap_orphans();
  reaped_ = true;
  close_fd(command_fd_);
  close_fd(pidfd_);
  // The writers are dead now: this takes what they wrote last, and output past the cap counts even then.
  if (!drain_output() && cause == Ending::Kind::running) cause = Ending::Kind::output_limit;
  ending_ = describe_ending(status, usage, cause, limits_, wrapped_);
  ending_.wall_seconds = elapsed_seconds();
  // Killed by the kernel for its cgroup's memory (its processes and its files together): a memory limit.
  if (cause == Ending::Kind::running && memory_ && memory_->oom_killed()) ending_.kind = Ending::Kind::memory_limit;
  // bwrap could not build the box or start the program in it (it cannot fork, with the machine out of processes):
  // the program never ran, so never answered. Its first words on stderr say so; the program's own code cannot have
  // written them before that first answer (no student code runs before main).
  const bool bwrap_spoke = stderr_.rfind("bwrap: ", 0) == 0;
  if (wrapped_ && !replied_ && bwrap_spoke && ending_.kind == Ending::Kind::exited && ending_.exit_code == 1) {
    ending_.kind = Ending::Kind::start_failed;
    ending_.start_failure = stderr_.substr(0, stderr_.find('\n'));
  }
}

std::string signal_name(int signal) {
  static constexpr std::pair<int, const char*> kNames[] = {
      {SIGHUP, "SIGHUP"},     {SIGINT, "SIGINT"},       {SIGQUIT, "SIGQUIT"},     {SIGILL, "SIGILL"},
      {SIGTRAP, "SIGTRAP"},   {SIGABRT, "SIGABRT"},     {SIGBUS, "SIGBUS"},       {SIGFPE, "SIGFPE"},
      {SIGKILL, "SIGKILL"},   {SIGUSR1, "SIGUSR1"},     {SIGSEGV, "SIGSEGV"},     {SIGUSR2, "SIGUSR2"},
      {SIGPIPE, "SIGPIPE"},   {SIGALRM, "SIGALRM"},     {SIGTERM, "SIGTERM"},     {SIGCHLD, "SIGCHLD"},
      {SIGCONT, "SIGCONT"},   {SIGSTOP, "SIGSTOP"},     {SIGTSTP, "SIGTSTP"},     {SIGTTIN, "SIGTTIN"},
      {SIGTTOU, "SIGTTOU"},   {SIGURG, "SIGURG"},       {SIGXCPU, "SIGXCPU"},     {SIGXFSZ, "SIGXFSZ"},
      {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"},   {SIGWINCH, "SIGWINCH"},   {SIGIO, "SIGIO"},
      {SIGSYS, "SIGSYS"},
#ifdef SIGSTKFLT
      {SIGSTKFLT, "SIGSTKFLT"},
#endif
#ifdef SIGPWR
      {SIGPWR, "SIGPWR"},
#endif
  };
  for (const auto& [number, name] : kNames) {
    if (number == signal) return name;
  }
  return "signal " + std::to_string(signal);
}

}  // namespace grader
