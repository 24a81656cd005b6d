// blocking.cpp: your solution to lab 4 (cache blocking and register blocking). The handout is
// labs/lab4-blocking/README.md; the rules both functions must follow are in blocking.h.
//
// As given, both functions are lab 2's i-k-j loop with no blocking at all: correct (C += A B), so they pass
// the correctness tests, and as slow as the baseline, so they earn no performance points.
// Run `grader lab4 --quick` to check correctness, `grader lab4` for the full report with timings.
#include "blocking.h"

// TODO(blocked): split each of the three loops into a loop over tiles and a loop within a tile:
//
//   for each tile row i0 (step block), for each tile p0 (step block), for each tile column j0 (step block):
//     for i in the tile, for p in the tile, for j in the tile:   C[i][j] += A[i][p] * B[p][j]
//
// so that one block x block tile of B is used by every row of the A tile while it is still in cache. Keep
// the i-p-j order inside the tile (the inner loop walks rows of B and C with stride 1). The last tile in each
// dimension is smaller when m, n or k is not a multiple of block: stop each inner loop at
// min(tile start + block, size), and test with 37 x 19 x 53 and block 8. See "Cache blocking" in the handout.
void matmul_blocked(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k,
                    std::int64_t block) {
  (void)block;  // unused until you block the loops
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
}

// TODO(register): the function the main performance items time, at 1024 x 2048 x 2048. Start from your
// blocked version; then compute C in small tiles (for example 4 rows x 8 columns) whose 32 sums live in
// local variables (registers) for the whole run over p, loading each A and B value once per tile instead
// of once per multiply-add. Handle the tiles at the right and bottom edges, where fewer than 4 rows or 8
// columns are left. See "Register blocking" and "Going further" in the handout.
void matmul_register_blocked(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n,
                             std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t p = 0; p < k; ++p)
      for (std::int64_t j = 0; j < n; ++j) c[i * n + j] += a[i * k + p] * b[p * n + j];
}
