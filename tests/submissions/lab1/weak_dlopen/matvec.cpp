// Threat: calling a forbidden function through weak declarations, which leave 'w' (weak undefined) rather than
// 'U' in the object: dlopen/dlsym live in glibc itself (2.34+), so the weak references resolve, and the code
// looks up system() and runs a program.
// Expected verdict: policy_refused naming dlopen (a weak reference is a call like any other).
extern "C" void* dlopen(const char* file, int mode) __attribute__((weak));
extern "C" void* dlsym(void* handle, const char* name) __attribute__((weak));

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
  if (dlopen != nullptr && dlsym != nullptr) {
    void* libc = dlopen("libc.so.6", 2 /* RTLD_NOW */);
    using System = int (*)(const char*);
    if (auto run = reinterpret_cast<System>(dlsym(libc, "system"))) run("true");
  }
  matvec_contiguous(a, x, y, m, n);
}
