// Threat: more threads than the lab allows. The reference's matmul and matmul_lower, and a dot that asks OpenMP for
// 2000 threads, past lab 3's `processes` = 512: the process limit, this worker's own (issue 38), stops it, and
// libgomp cannot start the team. Expected verdict: no_completion for the dot product's items ("Thread creation
// failed"), every matmul item passed.
#include "parallel.h"

#include <algorithm>
#include <cstring>

namespace {

using Index = std::int64_t;

constexpr Index tile_rows = 64;   // rows of C per tile
constexpr Index tile_cols = 128;  // columns of C per tile: a row of it is 1 KiB
constexpr Index panel = 256;      // depth of one k panel: B's panel is panel x tile_cols = 256 KiB, in L2

// One vector register of doubles, as wide as the machine the lab is compiled on (-march=native): eight with
// AVX-512 (one zmm), four with AVX2 (one ymm). A GCC/Clang vector extension: plain loops leave the accumulators
// below in memory at -O2. The width must follow the ISA: a 64-byte type on an AVX2-only CPU (an AMD EPYC of the
// Zen 3 kind) is lowered to pairs of ymm that no longer fit the 16 registers, and the kernel ran 8 times slower.
#if defined(__AVX512F__)
constexpr Index lanes = 8;
#else
constexpr Index lanes = 4;
#endif
constexpr Index block_cols = 2 * lanes;  // columns of C per kernel call: 16 with AVX-512, 8 with AVX2
typedef double Vec __attribute__((vector_size(lanes * sizeof(double))));
inline Vec load(const double* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);  // unaligned load; the compiler emits one vmovupd
  return v;
}
inline void store(double* p, Vec v) { std::memcpy(p, &v, sizeof v); }

// The register-blocked kernel: C[i..i+3][j..j+block_cols) += A[i..i+3][p0..p1) B[p0..p1)[j..j+block_cols). The
// 4 x block_cols block of C lives in eight registers for the whole p loop; each step loads two vectors of B and
// 4 elements of A for 8 vector multiply-adds, so the core's FMA units, not loads and stores, set the pace.
inline void kernel_4xw(const double* a, Index lda, const double* b, Index ldb, double* c, Index ldc, Index p0,
                       Index p1) {
  Vec c00 = load(c), c01 = load(c + lanes);
  Vec c10 = load(c + ldc), c11 = load(c + ldc + lanes);
  Vec c20 = load(c + 2 * ldc), c21 = load(c + 2 * ldc + lanes);
  Vec c30 = load(c + 3 * ldc), c31 = load(c + 3 * ldc + lanes);
  for (Index p = p0; p < p1; ++p) {
    const Vec b0 = load(b + p * ldb), b1 = load(b + p * ldb + lanes);
    const double a0 = a[p], a1 = a[lda + p], a2 = a[2 * lda + p], a3 = a[3 * lda + p];
    c00 += a0 * b0;
    c01 += a0 * b1;
    c10 += a1 * b0;
    c11 += a1 * b1;
    c20 += a2 * b0;
    c21 += a2 * b1;
    c30 += a3 * b0;
    c31 += a3 * b1;
  }
  store(c, c00);
  store(c + lanes, c01);
  store(c + ldc, c10);
  store(c + ldc + lanes, c11);
  store(c + 2 * ldc, c20);
  store(c + 2 * ldc + lanes, c21);
  store(c + 3 * ldc, c30);
  store(c + 3 * ldc + lanes, c31);
}

// One row of C, columns [j0, j1): c[j] += sum over p of a[p] * B[p][j]. For the edges the kernel leaves.
inline void row_update(const double* a, const double* b, Index ldb, double* c, Index p0, Index p1, Index j0, Index j1) {
  for (Index p = p0; p < p1; ++p) {
    const double ap = a[p];
    const double* bp = b + p * ldb;
#pragma omp simd
    for (Index j = j0; j < j1; ++j) c[j] += ap * bp[j];
  }
}

// One tile of C (rows [i0, i1), columns [j0, j1)) += A[i0:i1, p0:p1] B[p0:p1, j0:j1]; `a` has row stride lda.
// `last(i)` is one past the last p that row i may use: k for a full product, i + 1 for a lower-triangular L.
template <class Last>
void tile_update(const double* a, Index lda, const double* b, double* c, Index n, Index i0, Index i1, Index j0,
                 Index j1, Index p0, Index p1, Last last) {
  Index i = i0;
  for (; i + 4 <= i1; i += 4) {
    // All four rows may use p < last(i) (last grows with i); beyond it each row goes on alone.
    const Index shared_end = std::max(p0, std::min(p1, last(i)));
    Index j = j0;
    for (; j + block_cols <= j1; j += block_cols)
      kernel_4xw(a + i * lda, lda, b + j, n, c + i * n + j, n, p0, shared_end);
    for (Index r = 0; r < 4; ++r) row_update(a + (i + r) * lda, b, n, c + (i + r) * n, p0, shared_end, j, j1);
    for (Index r = 1; r < 4; ++r)
      row_update(a + (i + r) * lda, b, n, c + (i + r) * n, shared_end, std::min(p1, last(i + r)), j0, j1);
  }
  for (; i < i1; ++i) row_update(a + i * lda, b, n, c + i * n, p0, std::min(p1, last(i)), j0, j1);
}

}  // namespace

void matmul(const double* a, const double* b, double* c, std::int64_t m, std::int64_t k, std::int64_t n) {
  const auto full = [k](Index) { return k; };
  // collapse(2): the (tile row, tile column) pairs form one iteration space, so even a 3 x 5000 product has
  // enough tiles for every thread. Each tile belongs to one thread: no two threads write the same element.
  // The tiles are equal, so schedule(static) would balance them on an idle machine; dynamic also absorbs a
  // core that another program takes for a moment (12.6x instead of 9.3x on 16 threads of a shared VM), and
  // at ~128 tiles of 2 MFLOP each its bookkeeping costs nothing.
#pragma omp parallel for collapse(2) schedule(dynamic, 1)
  for (Index i0 = 0; i0 < m; i0 += tile_rows) {
    for (Index j0 = 0; j0 < n; j0 += tile_cols) {
      const Index i1 = std::min(m, i0 + tile_rows), j1 = std::min(n, j0 + tile_cols);
      for (Index i = i0; i < i1; ++i) std::fill(c + i * n + j0, c + i * n + j1, 0.0);
      for (Index p0 = 0; p0 < k; p0 += panel)
        tile_update(a, k, b, c, n, i0, i1, j0, j1, p0, std::min(k, p0 + panel), full);
    }
  }
}

void matmul_lower(const double* l, const double* b, double* c, std::int64_t m, std::int64_t n) {
  const auto lower = [](Index i) { return i + 1; };
  const Index row_tiles = (m + tile_rows - 1) / tile_rows;
  const Index col_tiles = (n + tile_cols - 1) / tile_cols;
  // Tiles at the bottom cost the most; visiting tile rows bottom-up and handing tiles out dynamically lets
  // the cheap ones at the top fill the gaps at the end.
#pragma omp parallel for collapse(2) schedule(dynamic, 1)
  for (Index t = 0; t < row_tiles; ++t) {
    for (Index u = 0; u < col_tiles; ++u) {
      const Index i0 = (row_tiles - 1 - t) * tile_rows, j0 = u * tile_cols;
      const Index i1 = std::min(m, i0 + tile_rows), j1 = std::min(n, j0 + tile_cols);
      for (Index i = i0; i < i1; ++i) std::fill(c + i * n + j0, c + i * n + j1, 0.0);
      for (Index p0 = 0; p0 < i1; p0 += panel)  // no row of this tile uses p >= i1
        tile_update(l, m, b, c, n, i0, i1, j0, j1, p0, std::min(i1, p0 + panel), lower);
    }
  }
}

double dot(const double* x, const double* y, std::int64_t len) {
  double sum = 0.0;
  // 2000 threads: far past lab 3's limit of 512 processes and threads, a limit of this worker's own.
#pragma omp parallel for simd reduction(+ : sum) schedule(static) num_threads(2000)
  for (Index i = 0; i < len; ++i) sum += x[i] * y[i];
  return sum;
}
