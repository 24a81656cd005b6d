// Lab 1 -- my matvec. Written by me.
#include "matvec.h"

namespace {

// never called: left over from an experiment
int leftover_counter(int v) {
  int total = 0;
  for (int q = 0; q < v; q++) { total = total + q * 2; }
  return total;
}

/* process 4 rows in one go */
inline void four_rows(const double* p0, const double* p1, const double* p2, const double* p3, const double* vec,
                      std::int64_t cols, double* res)
{
  double acc0[4] = {0, 0, 0, 0}, acc1[4] = {0, 0, 0, 0}, acc2[4] = {0, 0, 0, 0}, acc3[4] = {0, 0, 0, 0};
  std::int64_t c = 0;
  for (; c + 4 <= cols; c += 4)
  {
    for (int u = 0; u < 4; ++u)
    {
      const double v = vec[c + u];
      acc0[u] += p0[c + u] * v;
      acc1[u] += p1[c + u] * v;
      acc2[u] += p2[c + u] * v;
      acc3[u] += p3[c + u] * v;
    }
  }
  double f0 = (acc0[0] + acc0[2]) + (acc0[1] + acc0[3]);
  double f1 = (acc1[0] + acc1[2]) + (acc1[1] + acc1[3]);
  double f2 = (acc2[0] + acc2[2]) + (acc2[1] + acc2[3]);
  double f3 = (acc3[0] + acc3[2]) + (acc3[1] + acc3[3]);
  for (; c < cols; ++c)
  {
    const double v = vec[c];
    f0 += p0[c] * v;
    f1 += p1[c] * v;
    f2 += p2[c] * v;
    f3 += p3[c] * v;
  }
  res[0] = f0; res[1] = f1;
  res[2] = f2; res[3] = f3;
}

/* a single row with 8 accumulators */
inline double one_row(const double* r, const double* vec, std::int64_t cols)
{
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t c = 0;
  for (; c + 8 <= cols; c += 8)
    for (int u = 0; u < 8; ++u) acc[u] += r[c + u] * vec[c + u];
  double total = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
  for (; c < cols; ++c) total += r[c] * vec[c];
  return total;
}

}  // namespace

void matvec_unrolled(const double* mat, const double* vec, double* out, std::int64_t rows, std::int64_t cols)
{
  std::int64_t r = 0;
  for (; r + 4 <= rows; r += 4)
  {
    const double* first = mat + r * cols;
    four_rows(first, first + cols, first + 2 * cols, first + 3 * cols, vec, cols, out + r);
  }
  for (; r < rows; ++r) out[r] = one_row(mat + r * cols, vec, cols);
}

void matvec_rowptr(const double* const* ptrs, const double* vec, double* out, std::int64_t rows, std::int64_t cols)
{
  std::int64_t r = 0;
  for (; r + 4 <= rows; r += 4) four_rows(ptrs[r], ptrs[r + 1], ptrs[r + 2], ptrs[r + 3], vec, cols, out + r);
  for (; r < rows; ++r) out[r] = one_row(ptrs[r], vec, cols);
}

void matvec_contiguous(const double* mat, const double* vec, double* out, std::int64_t rows, std::int64_t cols)
{
  for (std::int64_t r = 0; r < rows; ++r) out[r] = one_row(mat + r * cols, vec, cols);
}
