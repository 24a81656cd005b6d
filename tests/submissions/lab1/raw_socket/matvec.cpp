// Threat: reaching the network with a raw socket system call, which names no socket() for the link policy.
// Expected verdict: crash naming the forbidden system call socket (the syscall filter).
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
  long fd;
  // socket(AF_INET = 2, SOCK_STREAM = 1, 0): SYS_socket is 41 on x86-64.
  asm volatile("syscall" : "=a"(fd) : "a"(41L), "D"(2L), "S"(1L), "d"(0L) : "rcx", "r11", "memory");
  (void)fd;
  matvec_contiguous(a, x, y, m, n);
}
