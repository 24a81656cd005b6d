// sandbox.h: the bubblewrap box around untrusted work (the candidate, and the compiler reading student
// code), where the machine allows it: no network, a read-only view of the system, a fresh /proc and /tmp,
// a new session, and nothing of the course repository (no reference/, no other students' work) except
// the directories bound in. Where bubblewrap is missing or user namespaces are off, the grader falls back
// to process limits alone and every report says so.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace grader {

// How a report's isolation line begins its sandbox part when the code ran without one: a batch's summary looks for
// it (batch/summary.h), so the words are kept here, once.
inline constexpr const char* no_sandbox_words = "no sandbox: ";

class Sandbox {
 public:
  // Probed once per process: is bwrap there, and can it build a box here (as the user workers run as)?
  // GRADER_SANDBOX=off turns it off (for debugging the grader, never for grading).
  static const Sandbox& get();

  bool available() const { return available_; }
  // What the report's isolation line says: the box, the syscall filter, and each worker's own user and cgroup.
  std::string description() const;

  // The archive of start-up objects that installs the syscall filter in a candidate (run/syscall_filter.h),
  // linked into every candidate; empty when the grader was built without libseccomp, the kernel has no
  // seccomp, or GRADER_SYSCALL_FILTER=off (for debugging the grader only).
  const std::filesystem::path& filter_library() const { return filter_library_; }

  // The command prefix that runs a program inside the box, starting in `cwd`, with `writable` (which holds
  // cwd) bound read-write, `readable` directories visible read-only, and the GPU's device nodes when `gpu`.
  // Empty when no box is available.
  std::vector<std::string> wrapper(const std::filesystem::path& writable, const std::filesystem::path& cwd,
                                   const std::vector<std::filesystem::path>& readable, bool gpu) const;

  // The box for a worker (a candidate or judge), which starts in `workdir`. Nothing it writes reaches the disk or
  // outlives it: its work directory and /tmp are tmpfs mounts of its own, RAM charged to its memory cgroup
  // (run/memory_cgroup.h), each refusing writes past `written_bytes` where this bwrap can say so (--size, from
  // bubblewrap 0.8; 0: no limit). A readable folder that is the work directory, or inside it, is shown over it,
  // read-only. `writable` folders (outside the work directory: a profiler's report) are bound read-write over all of
  // that. Empty when no box is available.
  std::vector<std::string> worker_wrapper(const std::filesystem::path& workdir, const std::vector<std::filesystem::path>& readable,
                                          bool gpu, std::size_t written_bytes,
                                          const std::vector<std::filesystem::path>& writable = {}) const;

 private:
  Sandbox();
  bool available_ = false;
  std::string why_not_;
  bool sizes_tmpfs_ = false;  // bwrap takes --size
  std::filesystem::path filter_library_;
  std::string filter_why_not_;
};

}  // namespace grader
