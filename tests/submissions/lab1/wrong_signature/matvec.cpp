// Broken submission for the e2e tests: wrong_signature.
// The three functions take `int` sizes instead of matvec.h's std::int64_t (and the file does not include
// matvec.h, so the compiler cannot notice): they compile, but under other (mangled) names, so the harness's
// calls to the lab's API find no definition when the program is linked.
// Expected verdict: report status build_error (the linker's "undefined reference" in build_log); total 0.
// Never an internal error: the file defines no API symbol at all, and the link policy must cope with that.

void matvec_rowptr(const double* const* rows, const double* x, double* y, int m, int n) {
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, int m, int n) {
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}

void matvec_unrolled(const double* a, const double* x, double* y, int m, int n) {
  for (int i = 0; i < m; ++i) {
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}
