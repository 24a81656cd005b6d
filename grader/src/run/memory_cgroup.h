// memory_cgroup.h: a memory cgroup of its own for every worker, where this machine lets the grader make one.
//
// The memory limit then holds over everything the worker keeps in RAM: all its processes together, not each on
// its own (RLIMIT_AS), and the files it writes, which live in tmpfs mounts (its work directory and /tmp in the
// sandbox, run/sandbox.h) whose pages are charged to the cgroup of the process that wrote them. Past the limit the
// kernel's OOM killer ends the worker, which the grader reads back as a memory limit (oom_killed()).
//
// cgroup v2 where the unified hierarchy has the memory controller (a folder `grader-workers` at its top, one leaf
// per worker below it); else cgroup v1's memory hierarchy (one leaf per worker below the grader's own cgroup, so
// whatever limits the grader also limits its workers). Where neither can be written (no root, a container without
// a writable /sys/fs/cgroup), there is none, and available() says why: the per-process limits still hold.
// GRADER_MEMORY_CGROUP=off turns it off (for debugging the grader, never for grading).
//
//   std::optional<MemoryCgroup> cgroup = MemoryCgroup::create(4ull << 30);
//   ... the forked child writes "0" to cgroup->procs_fd() before it drops privileges ...
//   if (cgroup && cgroup->oom_killed()) ...  // after the worker is reaped
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace grader {

class MemoryCgroup {
 public:
  // Whether workers get a cgroup here; `why` says which kind, or why none. Probed once per process.
  static bool available(std::string* why = nullptr);

  // A new leaf limited to `limit_bytes` (swap included where the kernel lets us say so). nullopt where
  // !available(), or when this leaf cannot be made.
  static std::optional<MemoryCgroup> create(std::size_t limit_bytes);

  MemoryCgroup(MemoryCgroup&& other) noexcept;
  MemoryCgroup& operator=(MemoryCgroup&& other) noexcept;
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;
  ~MemoryCgroup();  // removes the leaf (its tasks are gone by then); one still busy is removed by a later create()

  // Its cgroup.procs, open for writing and close-on-exec: a forked child joins by writing "0" to it.
  int procs_fd() const { return procs_fd_; }

  // Whether the OOM killer has killed a task of this cgroup (its memory was over the limit).
  bool oom_killed() const;

 private:
  MemoryCgroup() = default;
  std::string path_;
  int procs_fd_ = -1;
};

}  // namespace grader
