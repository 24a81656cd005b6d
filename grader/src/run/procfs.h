// procfs.h: what the process runner reads from /proc about processes it cannot ask directly: the resident
// memory of a whole process group (memory limits by polling) and the tasks a user already runs (process limits).
//
//   procfs::group_rss_bytes(child.pid());   // 300 MiB for a child and the helpers it forked
//   procfs::tasks_of_user(65534);           // 0 when nobody runs anything
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <vector>

namespace grader::procfs {

// Resident memory, in bytes, summed over the processes of process group `pgid`. Pages shared between them are
// counted once per process, so the sum can only overstate.
std::size_t group_rss_bytes(pid_t pgid);

// Tasks (processes and threads) whose real user id is `uid`: what the kernel compares with RLIMIT_NPROC.
long tasks_of_user(uid_t uid);

// The parent of `pid`, or -1 once it has gone.
pid_t parent_of(pid_t pid);

// The processes whose parent is `parent`.
std::vector<pid_t> children_of(pid_t parent);

// CPU seconds (user + system, all threads) each of `pids` has used itself, summed; a process gone counts 0.
double own_cpu_seconds(const std::vector<pid_t>& pids);

// The processes below `root` in the process tree (children, their children...), not `root` itself.
std::vector<pid_t> descendants_of(pid_t root);

}  // namespace grader::procfs
