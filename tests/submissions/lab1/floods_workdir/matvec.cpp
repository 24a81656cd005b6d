// Threat: filling the grading machine's disk with many files, each under the file-size limit. The reference's code,
// whose matvec_unrolled also writes 6 files of 60 MiB in its working directory with every call on a small matrix
// (a correctness case), up to 40 (2.3 GiB), ignoring failed writes; the timed calls on large matrices write nothing,
// so the attack costs no speed. The write budget stops it. Expected verdict: output_limit ("MiB of files") for
// "unrolled".
#include <cstdio>
#include <string>
#include <vector>

#include "matvec.h"

namespace {

// One row, eight partial sums (two vectors of four), then the n % 8 leftover columns.
inline double dot_row(const double* row, const double* x, std::int64_t n) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int k = 0; k < 8; ++k) s[k] += row[j + k] * x[j + k];
  double sum = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
  for (; j < n; ++j) sum += row[j] * x[j];
  return sum;
}

// Four rows at once, four partial sums per row (one vector each), then the n % 4 leftover columns.
inline void dot_4rows(const double* r0, const double* r1, const double* r2, const double* r3, const double* x,
                      std::int64_t n, double* out) {
  double s0[4] = {0, 0, 0, 0}, s1[4] = {0, 0, 0, 0}, s2[4] = {0, 0, 0, 0}, s3[4] = {0, 0, 0, 0};
  std::int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    for (int k = 0; k < 4; ++k) {
      const double xj = x[j + k];
      s0[k] += r0[j + k] * xj;
      s1[k] += r1[j + k] * xj;
      s2[k] += r2[j + k] * xj;
      s3[k] += r3[j + k] * xj;
    }
  }
  double t0 = (s0[0] + s0[2]) + (s0[1] + s0[3]);
  double t1 = (s1[0] + s1[2]) + (s1[1] + s1[3]);
  double t2 = (s2[0] + s2[2]) + (s2[1] + s2[3]);
  double t3 = (s3[0] + s3[2]) + (s3[1] + s3[3]);
  for (; j < n; ++j) {
    const double xj = x[j];
    t0 += r0[j] * xj;
    t1 += r1[j] * xj;
    t2 += r2[j] * xj;
    t3 += r3[j] * xj;
  }
  out[0] = t0;
  out[1] = t1;
  out[2] = t2;
  out[3] = t3;
}

}  // namespace

// Row pointers cost nothing inside a row (each row is contiguous); the same four-row kernel applies.
void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 4 <= m; i += 4) dot_4rows(rows[i], rows[i + 1], rows[i + 2], rows[i + 3], x, n, y + i);
  for (; i < m; ++i) y[i] = dot_row(rows[i], x, n);
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) y[i] = dot_row(a + i * n, x, n);
}

namespace {

// Files of 60 MiB: each under the lab's file-size limit of 64 MiB.
void flood(int per_call) {
  static int written = 0;
  const std::vector<char> block(1 << 20, 7);
  for (int k = 0; k < per_call && written < 40; ++k) {
    if (std::FILE* f = std::fopen(("flood-" + std::to_string(written++) + ".bin").c_str(), "wb")) {
      for (int mib = 0; mib < 60; ++mib) std::fwrite(block.data(), 1, block.size(), f);
      std::fclose(f);
    }
  }
}

}  // namespace

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  if (m * n <= (1 << 20)) flood(6);
  std::int64_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const double* r0 = a + i * n;
    dot_4rows(r0, r0 + n, r0 + 2 * n, r0 + 3 * n, x, n, y + i);
  }
  for (; i < m; ++i) y[i] = dot_row(a + i * n, x, n);
}
