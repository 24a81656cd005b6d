// Attacking submission for the e2e tests: runs_from_init (issue 32, class 5).
// A call spliced into the .init section, which the C runtime's _init runs before main: no .init_array,
// .preinit_array or .ctors entry, no constructor attribute. The code it calls runs before the harness is in
// control and could take over the process's pipes; here it only says so on stderr.
// Expected: report status policy_refused, its details naming .init; total 0.
#include "matvec.h"

#include <unistd.h>

extern "C" void before_the_harness() {
  const char said[] = "runs_from_init: this ran before main\n";
  (void)write(2, said, sizeof said - 1);
}

asm(R"(
  .section .init,"ax",@progbits
  call before_the_harness
  .text
)");

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
  matvec_contiguous(a, x, y, m, n);
}
