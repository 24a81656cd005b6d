// child_start.h: starting one untrusted child, the first half of ChildProcess::launch (run/process.h).
//
// Everything the child needs is prepared before fork(), and every pipe is made close-on-exec (launches from
// other threads must not inherit them). The forked child places its ends of the pipes at fds 0-4, closes the
// rest, enters its own process group and work directory, takes its rlimits, drops to its own user when we are root,
// and execs. A root grader gives each child a user id of its own (run/worker_uid.h) and, where it can, a memory
// cgroup of its own (run/memory_cgroup.h), which the child joins before it drops privileges. A failure before execve comes back over a sixth, close-on-exec pipe as (step, errno), so
// start_child() throws with the reason instead of returning a child that "exited 127".
//
//   const StartedChild started = start_child(options);   // then only waiting, talking and ending remain
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>

#include "run/memory_cgroup.h"
#include "run/process.h"
#include "run/worker_uid.h"

namespace grader {

// A child that has exec'd: its pid, which leads its own process group and is registered with the reaper
// (run/reaper.h), and the grader's ends of its pipes, blocking and close-on-exec. The caller owns all of them.
struct StartedChild {
  pid_t pid = -1;
  std::chrono::steady_clock::time_point started;
  int command_fd = -1;  // the child reads it as fd 3
  int reply_fd = -1;    // the child writes fd 4
  int stdout_fd = -1;
  int stderr_fd = -1;
  std::optional<WorkerUid> user;        // a root grader's: held until the child is reaped
  std::optional<MemoryCgroup> memory;  // where cgroups can be made and memory is limited
};

// Throws std::invalid_argument for options no child can run under (no argv, a limit that is not positive),
// std::system_error when the child cannot be started, naming the step that failed. A fork that fails for want of
// processes on the machine (EAGAIN) is tried again for a while first: the machine's shortage, not the child's.
StartedChild start_child(const LaunchOptions& options);

}  // namespace grader
