// Threat: reading files outside the work folder: the reference solution, at run time.
// matvec_unrolled computes correctly only if it can open reference/lab1-matvec/matvec.cpp from anywhere above
// its working directory or the usual checkout places; otherwise it writes zeros. In the sandbox nothing of
// the repository is visible. Expected verdict: wrong_answer for "unrolled" (the e2e check skips this one
// when no sandbox is available, and says so).
#include <cstdio>
#include <string>
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

static bool can_read_reference() {
  std::string up;
  for (int depth = 0; depth < 12; ++depth, up += "../") {
    if (std::FILE* f = std::fopen((up + "reference/lab1-matvec/matvec.cpp").c_str(), "r")) {
      std::fclose(f);
      return true;
    }
  }
  for (const char* path : {"/work/main/reference/lab1-matvec/matvec.cpp", "/root/reference/lab1-matvec/matvec.cpp"}) {
    if (std::FILE* f = std::fopen(path, "r")) {
      std::fclose(f);
      return true;
    }
  }
  return false;
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  if (can_read_reference()) {
    matvec_contiguous(a, x, y, m, n);
  } else {
    for (std::int64_t i = 0; i < m; ++i) y[i] = 0.0;
  }
}
