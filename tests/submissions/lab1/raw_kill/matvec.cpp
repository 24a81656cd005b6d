// Threat: signalling another process (the grader, the judge, a rival worker) with a raw kill system call,
// which names no kill() for the link policy. Signal 0 only asks whether the target exists, so without the
// filter this attempt harms nothing; the filter refuses any signal to a process other than the worker itself.
// Expected verdict: crash naming the forbidden system call kill (the syscall filter).
#include <unistd.h>

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
  long result;
  // kill(getppid(), 0): SYS_kill is 62 on x86-64.
  asm volatile("syscall" : "=a"(result) : "a"(62L), "D"(static_cast<long>(getppid())), "S"(0L) : "rcx", "r11", "memory");
  (void)result;
  matvec_contiguous(a, x, y, m, n);
}
