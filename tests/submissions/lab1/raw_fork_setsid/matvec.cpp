// Threat: a process that outlives its grading, started with raw system calls so that the link policy sees no
// fork and no setsid: the child leaves the process group (setsid) and sleeps on beside the next grading.
// Expected verdict: crash naming the forbidden system call fork (the syscall filter). With the filter off
// (GRADER_SYSCALL_FILTER=off) and no sandbox, the item passes and the grader's reaper must still leave no
// process of it behind: tests/e2e/e2e.py (raw-fork-reaped) finds the child by the file it writes in
// /tmp/grader-e2e-orphans/ when that directory exists.
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>

namespace {

long raw_syscall0(long number) {
  long result;
  asm volatile("syscall" : "=a"(result) : "a"(number) : "rcx", "r11", "memory");
  return result;
}

void leave_and_linger() {
  raw_syscall0(112);  // SYS_setsid
  char path[96];
  std::snprintf(path, sizeof path, "/tmp/grader-e2e-orphans/%ld", static_cast<long>(getpid()));
  const int fd = open(path, O_CREAT | O_WRONLY, 0644);
  if (fd >= 0) close(fd);
  timespec nap = {300, 0};
  nanosleep(&nap, nullptr);
  _exit(0);
}

}  // namespace

#include "matvec.h"

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  static bool started = false;
  if (!started) {
    started = true;
    const long child = raw_syscall0(57);  // SYS_fork; 0 in the child
    if (child == 0) leave_and_linger();
    // For the reaper's test only (the directory exists): wait until the child has left its mark, so that it
    // certainly ran before the grading can end.
    if (child > 0 && access("/tmp/grader-e2e-orphans", W_OK) == 0) {
      char path[96];
      std::snprintf(path, sizeof path, "/tmp/grader-e2e-orphans/%ld", child);
      for (int tries = 0; tries < 500 && access(path, F_OK) != 0; ++tries) {
        timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, nullptr);
      }
    }
  }
  matvec_contiguous(a, x, y, m, n);
}
