// Threat: reading another process's memory (the judge's expected outputs, the grader) with a raw ptrace system
// call, which names no ptrace() for the link policy. PTRACE_PEEKDATA on a process it does not trace fails
// without the filter, so this attempt harms nothing; the filter refuses ptrace outright.
// Expected verdict: crash naming the forbidden system call ptrace (the syscall filter).
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
  // ptrace(PTRACE_PEEKDATA = 2, getppid(), 0, 0): SYS_ptrace is 101 on x86-64.
  asm volatile("syscall" : "=a"(result) : "a"(101L), "D"(2L), "S"(static_cast<long>(getppid())), "d"(0L)
               : "rcx", "r11", "memory");
  (void)result;
  matvec_contiguous(a, x, y, m, n);
}
