// Threat (issue 34): matmul_blocked ignores its block size and calls the register-blocked, packed kernel: "cache
// blocking alone" timed at 15-20x instead of the ~3.6x cache blocking gives; before [steps] this scored 100/100.
// The rest is the reference. Expected (tests/e2e/e2e_steps.py): the cache-blocked items not_this_step
// ("matmul_blocked calls matmul_register_blocked"), caught without timing; the register-blocked items keep theirs.
// blocking.cpp (reference): lab 4's hidden solution. Never shipped to students.
//
// matmul_blocked: three loops over block x block tiles around the ikj order of lab 2. Within a tile, the
// inner loop adds a multiple of a row of the B tile to a row of the C tile; the B tile (block x block)
// stays in cache while every row of the A tile uses it, so B comes from memory m / block times in all
// instead of m times.
//
// matmul_register_blocked: the structure of GotoBLAS/BLIS, in plain C++ with GCC vector extensions.
//   - Cache blocks: B is copied ("packed") KC rows x NC columns at a time, A MC x KC at a time, into
//     buffers laid out in exactly the order the micro-kernel reads them: every load is then stride 1,
//     and edges are padded with zeros so the kernel never needs a special case inside its loop.
//   - The micro-kernel keeps an MR x NR tile of C in vector registers (MR rows of NR / lanes vectors)
//     while it runs through KC values of p: per p it loads NR values of B, broadcasts MR values of A and
//     does MR x NR / lanes fused multiply-adds, touching no memory for C at all.
//   - Edge tiles (m % MR, n % NR) run the same kernel on a copy of the tile in a small local buffer.
// Each C element still receives its k products in order p = 0, 1, ..., k-1 (the kernel starts from C's
// value), so the result equals the naive loop's to the last bit when both use FMA.
#include "blocking.h"

#include <algorithm>
#include <cstring>

namespace {

using i64 = std::int64_t;

// ---- cache blocking --------------------------------------------------------------------------------

// c_row[0..len) += s * b_row[0..len). __restrict promises the rows do not overlap, so -O3 vectorises the
// loop without a runtime overlap check.
inline void add_scaled_row(double* __restrict c_row, const double* __restrict b_row, double s, i64 len) {
  for (i64 j = 0; j < len; ++j) c_row[j] += s * b_row[j];
}

// ---- register blocking -----------------------------------------------------------------------------

// The vector width follows the machine the lab is compiled on (-march=native): eight doubles with AVX-512,
// four with AVX2. A GCC vector type of that width maps one variable to one register.
#if defined(__AVX512F__)
constexpr int kLanes = 8;
constexpr int kVecs = 4;  // 6 rows x 4 vectors = 24 accumulators of AVX-512's 32 registers
#else
constexpr int kLanes = 4;
constexpr int kVecs = 2;  // 6 rows x 2 vectors = 12 accumulators of AVX2's 16 registers
#endif
constexpr int MR = 6;
constexpr int NR = kVecs * kLanes;  // 32 columns with AVX-512: 2048 is a multiple, so no edge columns there
typedef double vec __attribute__((vector_size(kLanes * sizeof(double))));

// Cache block sizes, chosen by measuring on the lab machine (48 KiB L1 and 2 MiB L2 per core) around the
// usual rules: the MC x KC block of packed A (384 KiB) stays in L2 while the kernel sweeps one KC x NC block
// of packed B (2 MiB, mostly from L3), one KC x NR panel of it (64 KiB, L1 and L2) at a time. Per p the
// kernel does 24 vector FMAs for 4 vector loads and 6 broadcasts. Halving KC costs about 15% here.
constexpr i64 KC = 256;
constexpr i64 MC = 192;
constexpr i64 NC = 1024;
static_assert(MC % MR == 0 && NC % NR == 0, "cache blocks must hold whole micro-panels");

// Static so that no call pays for allocation; 64-byte aligned so packed loads never split a cache line.
alignas(64) double packed_a[MC * KC];
alignas(64) double packed_b[KC * NC];

inline vec load(const double* p) {
  vec v;
  std::memcpy(&v, p, sizeof v);  // an unaligned vector load (vmovupd)
  return v;
}
inline void store(double* p, vec v) { std::memcpy(p, &v, sizeof v); }

// B[p0.., j0..] (kc x nc) into NR-column panels: panel after panel, each kc rows of NR contiguous values,
// columns past nc filled with zeros.
void pack_b(const double* b, i64 ldb, i64 kc, i64 nc, double* out) {
  for (i64 j0 = 0; j0 < nc; j0 += NR) {
    const i64 cols = std::min<i64>(NR, nc - j0);
    for (i64 p = 0; p < kc; ++p) {
      const double* src = b + p * ldb + j0;
      for (i64 j = 0; j < cols; ++j) out[j] = src[j];
      for (i64 j = cols; j < NR; ++j) out[j] = 0.0;
      out += NR;
    }
  }
}

// A[i0.., p0..] (mc x kc) into MR-row panels: each kc columns of MR contiguous values (A transposed within
// the panel), rows past mc filled with zeros.
void pack_a(const double* a, i64 lda, i64 mc, i64 kc, double* out) {
  for (i64 i0 = 0; i0 < mc; i0 += MR) {
    const i64 rows = std::min<i64>(MR, mc - i0);
    for (i64 p = 0; p < kc; ++p) {
      for (i64 i = 0; i < rows; ++i) out[i] = a[(i0 + i) * lda + p];
      for (i64 i = rows; i < MR; ++i) out[i] = 0.0;
      out += MR;
    }
  }
}

// C tile (MR x NR, row stride ldc) += A panel (MR x kc) x B panel (kc x NR), the tile held in registers.
inline void micro_kernel(i64 kc, const double* __restrict ap, const double* __restrict bp, double* __restrict c,
                         i64 ldc) {
  vec acc[MR][kVecs];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < kVecs; ++v) acc[r][v] = load(c + r * ldc + v * kLanes);
  for (i64 p = 0; p < kc; ++p) {
    vec bv[kVecs];
    for (int v = 0; v < kVecs; ++v) bv[v] = load(bp + v * kLanes);
    for (int r = 0; r < MR; ++r)
      for (int v = 0; v < kVecs; ++v) acc[r][v] += ap[r] * bv[v];
    ap += MR;
    bp += NR;
  }
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < kVecs; ++v) store(c + r * ldc + v * kLanes, acc[r][v]);
}

// A partial tile (rows < MR or cols < NR): the same kernel on a copy, then only the valid part copied back.
void edge_kernel(i64 kc, const double* ap, const double* bp, double* c, i64 ldc, i64 rows, i64 cols) {
  alignas(64) double tile[MR * NR] = {};
  for (i64 r = 0; r < rows; ++r) std::memcpy(tile + r * NR, c + r * ldc, cols * sizeof(double));
  micro_kernel(kc, ap, bp, tile, NR);
  for (i64 r = 0; r < rows; ++r) std::memcpy(c + r * ldc, tile + r * NR, cols * sizeof(double));
}

}  // namespace

void matmul_register_blocked(const double* a, const double* b, double* c, i64 m, i64 n, i64 k);

void matmul_blocked(const double* a, const double* b, double* c, i64 m, i64 n, i64 k, i64 /*block*/) {
  matmul_register_blocked(a, b, c, m, n, k);
}

void matmul_register_blocked(const double* a, const double* b, double* c, i64 m, i64 n, i64 k) {
  for (i64 j0 = 0; j0 < n; j0 += NC) {
    const i64 nc = std::min(NC, n - j0);
    for (i64 p0 = 0; p0 < k; p0 += KC) {
      const i64 kc = std::min(KC, k - p0);
      pack_b(b + p0 * n + j0, n, kc, nc, packed_b);
      for (i64 i0 = 0; i0 < m; i0 += MC) {
        const i64 mc = std::min(MC, m - i0);
        pack_a(a + i0 * k + p0, k, mc, kc, packed_a);
        for (i64 jr = 0; jr < nc; jr += NR) {
          const i64 cols = std::min<i64>(NR, nc - jr);
          for (i64 ir = 0; ir < mc; ir += MR) {
            const i64 rows = std::min<i64>(MR, mc - ir);
            double* c_tile = c + (i0 + ir) * n + j0 + jr;
            const double* ap = packed_a + ir * kc;
            const double* bp = packed_b + jr * kc;
            if (rows == MR && cols == NR) {
              micro_kernel(kc, ap, bp, c_tile, n);
            } else {
              edge_kernel(kc, ap, bp, c_tile, n, rows, cols);
            }
          }
        }
      }
    }
  }
}
