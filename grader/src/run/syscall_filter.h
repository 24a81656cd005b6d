// syscall_filter.h: the seccomp filter every candidate runs under (pipeline stage 5, the kernel's side of the
// link policy). The policy reads the calls a student object names; a raw `syscall` instruction in inline
// assembly names nothing, so the kernel refuses the same things again: new processes, programs, other
// processes' signals and memory, sockets, namespaces and mounts, perf events, io_uring, userfaultfd, bpf,
// leaving the process group, and threads where the lab does not teach them.
//
// The candidate executable is linked with a start-up object of the grader (grader/filter/) whose constructor
// calls install_syscall_filter() before main, before any student code can run (the policy refuses student
// constructors and ifuncs). A refused call raises SIGSYS; the filter's handler writes
//   grader: forbidden system call fork
// to stderr and the process dies of SIGSYS, which the grader reports as a crash naming the call.
//
//   SyscallFilterOptions options;
//   options.threads = true;                     // OpenMP, CUDA
//   if (int error = install_syscall_filter(options)) ...;   // -errno
#pragma once

#include <sys/types.h>

#include <string_view>
#include <vector>

namespace grader {

struct SyscallFilterOptions {
  bool threads = false;       // clone(CLONE_THREAD): the CUDA runtime and OpenMP need threads
  bool unix_sockets = false;  // socket(AF_UNIX): the CUDA driver opens one at start-up (so does compute-sanitizer)
  // socket(AF_INET, AF_INET6) too, with unix_sockets: the one call profiled by Nsight Compute, whose library in the
  // program talks to ncu over TCP. Only for a process in a network namespace of its own that holds nothing but its
  // loopback (a bubblewrap box, or LaunchOptions::own_network), so 127.0.0.1 reaches ncu and nothing else.
  bool loopback_sockets = false;
  pid_t self = 0;             // the process signals may go to; 0: the caller (getpid())
};

// Installs the filter (and its SIGSYS reporter) in the calling process, on every thread it has (TSYNC), and
// sets no_new_privs. Returns 0, or -errno when the kernel or libseccomp refused. Not reversible.
int install_syscall_filter(const SyscallFilterOptions& options);

// Whether this grader was built with libseccomp (without it there is no filter, and the report says so).
bool syscall_filter_built();

// The system calls the filter refuses outright or by their arguments, for documentation and tests.
std::vector<std::string_view> filtered_syscalls();

// The stderr line the SIGSYS reporter writes before the process dies ("grader: forbidden system call ").
inline constexpr std::string_view kForbiddenSyscallMarker = "grader: forbidden system call ";

}  // namespace grader
