// start_filter.h: what the grader links into every candidate executable (never into the judge), so that the
// syscall filter is in force before main, before any student code runs: the link policy refuses student
// constructors (.init_array) and ifuncs, the only student code that could run earlier. Being part of the
// executable, it fails closed: there is no preload to lose, and a filter that cannot be installed stops the
// worker before it greets the grader. The grader picks one of two objects by the symbol it asks the linker to
// keep (build/build.cpp): threads.cpp for labs with threads (OpenMP, CUDA), no_threads.cpp for the others.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "run/syscall_filter.h"

namespace grader::start {

inline void install_or_die(bool threads) {
  SyscallFilterOptions options;
  options.threads = threads;
  // compute-sanitizer (grader --sanitize) injects a library that talks to its front end over a Unix socket;
  // the grader sets nothing of the kind, and a submission cannot set it before this runs.
  options.unix_sockets = std::getenv("CUDA_INJECTION64_PATH") != nullptr;
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
