// start_filter.h: what the grader links into every candidate executable (never into the judge), so that the
// syscall filter is in force before main, before any student code runs: the link policy refuses student
// constructors (.init_array) and ifuncs, the only student code that could run earlier. Being part of the
// executable, it fails closed: there is no preload to lose, and a filter that cannot be installed stops the
// worker before it greets the grader. The grader picks one of three objects by the symbol it asks the linker to
// keep (build/build.cpp): cuda.cpp for CUDA labs, threads.cpp for other labs with threads (OpenMP),
// no_threads.cpp for the others.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "run/syscall_filter.h"

namespace grader::start {

// cuda: the CUDA runtime cannot allocate device memory without a Unix socket (the driver opens one at start-up;
// a failed socket() makes cudaMalloc fail with cudaErrorOperatingSystem), and compute-sanitizer's injected
// library talks to its front end over one. The network stays refused in every lab.
inline void install_or_die(bool threads, bool cuda) {
  SyscallFilterOptions options;
  options.threads = threads;
  options.unix_sockets = cuda;
  // The grader sets this only for the one call it profiles with ncu, in a network namespace of the worker's own
  // (pipeline/counters_stage.cpp); the program cannot set its own environment before this runs.
  const char* profiled = std::getenv("GRADER_PROFILED_CALL");
  options.loopback_sockets = cuda && profiled != nullptr && std::strcmp(profiled, "loopback") == 0;
  const int error = install_syscall_filter(options);
  if (error == 0) return;
  static const char message[] = "grader: cannot install the syscall filter in the candidate: ";
  [[maybe_unused]] ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
  const char* reason = std::strerror(-error);
  ignored = write(STDERR_FILENO, reason, std::strlen(reason));
  ignored = write(STDERR_FILENO, "\n", 1);
  _exit(125);
}

}  // namespace grader::start
