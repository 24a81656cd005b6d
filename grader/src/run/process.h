// process.h: one untrusted child process under limits (pipeline stage 5, the mechanism).
//
// The child runs in its own process group with a clean environment, a fresh working directory and rlimits
// (CPU time, memory, processes, file size, open files, no core dumps); when the grader runs as root it drops
// to a user id of its own (run/worker_uid.h), so that its process limit counts its own tasks and no other
// grading's, and joins a memory cgroup of its own where one can be made (run/memory_cgroup.h), so that its memory
// limit holds over all its processes and the files it keeps in RAM. What it writes to files is bounded too
// (written_bytes). The grader's side owns two pipes to the child's
// fds 3 (commands) and 4 (replies); stdout and stderr are drained into buffers capped at the output limit.
// Every read waits with a deadline, and while it waits the wall-clock limit is enforced: past it the whole
// process group is killed.
//
//   ChildProcess child = ChildProcess::launch(options);
//   child.send("{\"op\":\"hello\"}\n");
//   std::string line;
//   if (child.read_line(line, std::chrono::seconds(10)) != ReadStatus::ok) { Ending how = child.finish(); ... }
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "run/memory_cgroup.h"
#include "run/worker_uid.h"
#include "run/written_files.h"

namespace grader {

struct ProcessLimits {
  double wall_seconds = 60;
  double cpu_seconds = 120;
  std::size_t memory_bytes = 0;     // 0: no limit
  bool limit_address_space = true;  // RLIMIT_AS; CUDA processes reserve huge address space, so GPU labs poll RSS instead
  std::size_t output_bytes = 64 * 1024;  // stdout and stderr each; past it the child is killed
  int processes = 64;  // tasks (processes and threads) the child may run, itself included: RLIMIT_NPROC over what
                       // its user already runs (a root grader's child has a user id of its own: none)
  std::size_t file_bytes = 64u << 20;  // each file
  // Everything it writes to files, in every place it can write (in the sandbox: its work directory and /tmp, both
  // tmpfs, so RAM that also counts against memory_bytes where a memory cgroup holds it); 0: no limit.
  std::size_t written_bytes = 256u << 20;
  int open_files = 64;
};

struct LaunchOptions {
  std::vector<std::string> argv;  // argv[0] is the program's path
  std::filesystem::path workdir;  // created by the caller; the child's cwd
  std::map<std::string, std::string> environment;  // the whole environment: nothing is inherited
  ProcessLimits limits;
  std::vector<std::string> wrapper;  // prefix to argv (e.g. a bubblewrap command line), empty for none
  // A network namespace of the child's own, holding only its loopback, brought up: for a run that must talk TCP to
  // a tool started with it (ncu) where no bubblewrap box gives it one. Root only: start_child fails otherwise.
  bool own_network = false;
};

// How a child ended. One of these becomes the verdict when a worker stops answering.
struct Ending {
  enum class Kind {
    running,       // not ended yet (finish() not called)
    exited,        // exited by itself; see exit_code
    signaled,      // killed by a signal it did not get from us; see signal
    wall_timeout,  // we killed it: wall-clock limit
    cpu_timeout,   // SIGXCPU / SIGKILL after the CPU limit
    memory_limit,  // RSS over the limit (polled) — RLIMIT_AS failures show as allocation errors instead
    output_limit,  // stdout or stderr past the cap
    written_limit, // its files past written_bytes
    start_failed,  // the sandbox could not start the program (the machine's doing: bwrap said why on stderr)
  };
  Kind kind = Kind::running;
  int exit_code = 0;
  int signal = 0;
  std::string signal_name;  // "SIGSEGV"
  double wall_seconds = 0;
  double cpu_seconds = 0;     // user + system of the child and its reaped descendants
  std::size_t max_rss_bytes = 0;
  std::string start_failure;  // start_failed: what bwrap said
};

enum class ReadStatus {
  ok,
  closed,    // the child closed its reply pipe (exited, crashed)
  deadline,  // nothing within the read's deadline (the child is still alive)
  killed,    // we killed it for a limit while waiting; see ending()
};

class ChildProcess {
 public:
  // Starts the child. Throws std::system_error if it cannot be started at all (no such program, fork failed).
  static ChildProcess launch(const LaunchOptions& options);

  ChildProcess(ChildProcess&&) noexcept;
  ChildProcess& operator=(ChildProcess&&) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // kills the process group and reaps, if still running

  // Writes all of `bytes` to the child's fd 3. False if the child is gone or the wall limit passed.
  bool send(std::string_view bytes);

  // Reads one reply line (without the newline) from fd 4, waiting at most `timeout` (and never past the
  // wall-clock limit).
  ReadStatus read_line(std::string& line, std::chrono::duration<double> timeout);

  // Reads exactly `count` raw bytes from fd 4 into `into`.
  ReadStatus read_exact(void* into, std::size_t count, std::chrono::duration<double> timeout);

  // Closes fd 3, waits (up to `grace`) for the child to exit, kills the group if it does not, reaps it.
  // Safe to call more than once; returns the same Ending each time.
  const Ending& finish(std::chrono::duration<double> grace = std::chrono::seconds(2));

  // Kills the whole process group now and reaps (used when a reply is malformed).
  const Ending& kill();

  const Ending& ending() const { return ending_; }
  const std::string& stdout_text() const { return stdout_; }
  const std::string& stderr_text() const { return stderr_; }
  bool output_truncated() const { return output_truncated_; }
  pid_t pid() const { return pid_; }
  double elapsed_seconds() const;

 private:
  using Clock = std::chrono::steady_clock;
  enum class Woke { ready, deadline, killed };  // why wait_for returned

  ChildProcess() = default;
  Woke wait_for(int fd, short events, Clock::time_point deadline);
  ReadStatus receive(char* into, std::size_t capacity, std::size_t& received, Clock::time_point deadline);
  bool drain_output();
  bool has_exited() const;
  bool killed_for_limit() const;
  bool within_written_budget();
  void end(Ending::Kind cause);
  void release() noexcept;

  pid_t pid_ = -1;  // also the id of the child's process group
  int command_fd_ = -1;
  int reply_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  int pidfd_ = -1;  // readable once the child exits; -1 on kernels without pidfd_open (before 5.3)
  Clock::time_point started_;
  Clock::time_point wall_deadline_;
  Clock::time_point next_rss_check_;
  Clock::time_point next_written_check_;
  WrittenFiles written_;
  ProcessLimits limits_;
  std::string stdout_;
  std::string stderr_;
  std::string reply_buffer_;  // bytes read from fd 4 but not yet handed out
  bool output_truncated_ = false;
  bool reaped_ = false;  // the child has been reaped and ending_ is final
  bool wrapped_ = false;  // argv ran behind a wrapper (bubblewrap), which reports signals as exit codes
  bool replied_ = false;  // a byte has come on fd 4: the program ran
  Ending ending_;
  // Released after the child is reaped (members are destroyed after release()).
  std::optional<WorkerUid> user_;
  std::optional<MemoryCgroup> memory_;
};

std::string signal_name(int signal);  // "SIGSEGV"; "signal 64" for ones without a name


}  // namespace grader
