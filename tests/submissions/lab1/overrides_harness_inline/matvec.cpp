// Attacking submission for the e2e tests: overrides_harness_inline (issue 32, class 1). Correct functions, and, in
// assembly, definitions of functions the harness calls with bindings other than GLOBAL and WEAK:
//   - labkit::Problem::finish(), an inline member of the lab kit's header that the harness's object defines
//     weak, defined here GNU_UNIQUE (which outranks a weak definition) so the harness would call this copy;
//   - std::chrono::steady_clock::now(), GNU_UNIQUE in a COMDAT group of its own;
//   - std::vector<double>::_M_default_append, an instantiation the harness also holds, in a COMDAT group with the
//     harness's own signature (a "pre-instantiated" template).
// Each stops the process at once (ud2); the submission never calls them itself.
// Expected: GNU_UNIQUE made weak then local, every group dissolved, nothing but the lab's interface left global:
// every item passes, 40 of 40 correctness points. (Before the fix every case crashed, SIGILL.)
#include "matvec.h"

asm(R"(
  .section .text.finish_override,"ax",@progbits
  .globl _ZN6labkit7Problem6finishEv
  .type _ZN6labkit7Problem6finishEv, @gnu_unique_object
_ZN6labkit7Problem6finishEv:
  ud2

  .section .text._ZNSt6chrono3_V212steady_clock3nowEv,"axG",@progbits,_ZNSt6chrono3_V212steady_clock3nowEv,comdat
  .globl _ZNSt6chrono3_V212steady_clock3nowEv
  .type _ZNSt6chrono3_V212steady_clock3nowEv, @gnu_unique_object
_ZNSt6chrono3_V212steady_clock3nowEv:
  ud2

  .section .text._ZNSt6vectorIdSaIdEE17_M_default_appendEm,"axG",@progbits,_ZNSt6vectorIdSaIdEE17_M_default_appendEm,comdat
  .weak _ZNSt6vectorIdSaIdEE17_M_default_appendEm
  .type _ZNSt6vectorIdSaIdEE17_M_default_appendEm, @function
_ZNSt6vectorIdSaIdEE17_M_default_appendEm:
  ud2
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
