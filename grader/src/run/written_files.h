// written_files.h: how much a worker has written to files, in every place it can write, for the write budget
// (ProcessLimits::written_bytes).
//
// In the sandbox those places are two tmpfs mounts, its work directory and /tmp (run/sandbox.h): nothing a worker
// writes reaches the disk, and both go when it ends. They are read through /proc/<pid>/root of a process inside the
// box, as statvfs's used blocks. Without a sandbox the work directory is a folder on disk: its files are summed.
//
//   WrittenFiles written(child.pid(), workdir, sandboxed);
//   if (written.bytes() >= limits.written_bytes) ...   // kill: past the budget
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>

namespace grader {

class WrittenFiles {
 public:
  WrittenFiles() = default;
  WrittenFiles(pid_t leader, std::filesystem::path workdir, bool sandboxed)
      : leader_(leader), workdir_(std::move(workdir)), sandboxed_(sandboxed) {}

  // Bytes in the worker's writable places now; 0 once they cannot be seen (the box is gone).
  std::size_t bytes();

 private:
  pid_t leader_ = -1;
  std::filesystem::path workdir_;
  bool sandboxed_ = false;
  pid_t inside_ = -1;  // a process inside the box, found once and again only when it has gone
};

}  // namespace grader
