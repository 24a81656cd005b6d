// blocking.cpp (mid-tier): a lab 4 submission that earns about half the performance points, for
// bench/regrade_spread.py. Correct everywhere. matmul_blocked is the plain ikj loop (no cache blocking: no points
// for it); matmul_register_blocked keeps a 4 x 8 tile of C in 256-bit vector registers, blocks k by 256 and packs
// nothing, the kind of kernel the lab's lab.toml puts at about x8 over ikj and 0.22 of the roofline on a quiet machine.
// Measured once here, loaded: x2.94 and 0.15 of the roofline, 5 of 60 performance points; without the k blocks x1.57,
// with the row tiles outermost x1.0. Not yet half way on this machine: unrolling further (6 x 8) is the next step.
#include "blocking.h"

#include <cstring>

namespace {

using i64 = std::int64_t;
typedef double vec4 __attribute__((vector_size(4 * sizeof(double))));

vec4 load(const double* p) {
  vec4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void store(double* p, vec4 v) { std::memcpy(p, &v, sizeof v); }

// C[i][j] += sum over p of A[i][p] B[p][j], one element: for the edges the tile does not cover.
void one_element(const double* a, const double* b, double* c, i64 n, i64 k, i64 i, i64 j) {
  double sum = c[i * n + j];
  for (i64 p = 0; p < k; ++p) sum += a[i * k + p] * b[p * n + j];
  c[i * n + j] = sum;
}

}  // namespace

void matmul_blocked(const double* a, const double* b, double* c, i64 m, i64 n, i64 k, i64 /*block*/) {
  for (i64 i = 0; i < m; ++i)
    for (i64 p = 0; p < k; ++p) {
      const double s = a[i * k + p];
      for (i64 j = 0; j < n; ++j) c[i * n + j] += s * b[p * n + j];
    }
}

void matmul_register_blocked(const double* a, const double* b, double* c, i64 m, i64 n, i64 k) {
  const i64 m4 = m - m % 4, n8 = n - n % 8;
  // k in blocks of 256, column panels next: one 256 x 8 panel of B (16 KiB) stays in L1 while every row tile uses
  // it. Each C element still receives its products in the order p = 0, 1, ..., k-1.
  constexpr i64 kc = 256;
  for (i64 p0 = 0; p0 < k; p0 += kc)
    for (i64 j0 = 0; j0 < n8; j0 += 8)
      for (i64 i0 = 0; i0 < m4; i0 += 4) {
        const i64 p1 = p0 + kc < k ? p0 + kc : k;
        vec4 acc[4][2];
        for (int r = 0; r < 4; ++r)
          for (int v = 0; v < 2; ++v) acc[r][v] = load(c + (i0 + r) * n + j0 + 4 * v);
        for (i64 p = p0; p < p1; ++p) {
          const vec4 b0 = load(b + p * n + j0), b1 = load(b + p * n + j0 + 4);
          for (int r = 0; r < 4; ++r) {
            const double s = a[(i0 + r) * k + p];
            acc[r][0] += s * b0;
            acc[r][1] += s * b1;
          }
        }
        for (int r = 0; r < 4; ++r)
          for (int v = 0; v < 2; ++v) store(c + (i0 + r) * n + j0 + 4 * v, acc[r][v]);
      }
  for (i64 i = 0; i < m; ++i)
    for (i64 j = (i < m4 ? n8 : 0); j < n; ++j) one_element(a, b, c, n, k, i, j);
}
