// baseline.cpp: the judge's matvec, linked into the trusted worker. Three jobs:
//   - the oracle: every variant is the plain double loop, so its answers are easy to trust;
//   - the baseline: its "rowptr" is the loop a student writes first (one running sum per row), and the speedup
//     item measures the student's "unrolled" against it. This is deliberately not a model solution; do not tune
//     it, or every speedup in the class moves;
//   - the yardstick of the bandwidth item, "tuned": a matvec as fast as one core runs it (four rows at a time,
//     each summed in one vector register, x read from cache). Timed in the same rounds as the student's matvec, it
//     is what this machine gave a good matvec in that same second: a shared VM's read bandwidth moves by a factor
//     of two within minutes, which no calibration taken earlier sees;
//   - that item's bound, "read_a": the same walk through A without x or the multiplies, which no honest matvec
//     beats by much. It is not the yardstick: a yardstick doing less than the item's work leaves the student's
//     fraction to how much the multiplies and x cost on this CPU (the reference read 0.87 to 1.03 of read_a on a
//     quiet VM; 0.99 to 1.01 of "tuned").
#include <cstring>

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
  // The oracle for "unrolled" is the same loop as "contiguous": only the student's version is unrolled.
  matvec_contiguous(a, x, y, m, n);
}

namespace {

// Four doubles in one vector register (AVX); the compiler splits it where the machine has only SSE.
typedef double four_doubles __attribute__((vector_size(32)));

four_doubles load_four(const double* from) {
  four_doubles v;
  std::memcpy(&v, from, sizeof v);  // A's rows start anywhere: an unaligned load
  return v;
}

double sum_of(four_doubles v) { return (v[0] + v[1]) + (v[2] + v[3]); }

// Four rows at a time, each summed in one vector register, then the n % 4 leftover columns and the m % 4
// leftover rows. With `times_x` it is a matvec (y = A x); without, the row sums of A: the same walk through A
// without x or the multiplies.
template <bool times_x>
void four_rows_at_a_time(const double* a, const double* x, double* out, std::int64_t m, std::int64_t n) {
  auto term = [x](const double* row, std::int64_t j) {
    if constexpr (times_x) return row[j] * x[j];
    else return row[j];
  };
  std::int64_t i = 0;
  for (; i + 4 <= m; i += 4) {
    const double* r0 = a + i * n;
    const double *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
    four_doubles s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;
    std::int64_t j = 0;
    for (; j + 4 <= n; j += 4) {
      if constexpr (times_x) {
        const four_doubles xj = load_four(x + j);
        s0 += load_four(r0 + j) * xj;
        s1 += load_four(r1 + j) * xj;
        s2 += load_four(r2 + j) * xj;
        s3 += load_four(r3 + j) * xj;
      } else {
        s0 += load_four(r0 + j);
        s1 += load_four(r1 + j);
        s2 += load_four(r2 + j);
        s3 += load_four(r3 + j);
      }
    }
    double t0 = sum_of(s0), t1 = sum_of(s1), t2 = sum_of(s2), t3 = sum_of(s3);
    for (; j < n; ++j) {
      t0 += term(r0, j);
      t1 += term(r1, j);
      t2 += term(r2, j);
      t3 += term(r3, j);
    }
    out[i] = t0;
    out[i + 1] = t1;
    out[i + 2] = t2;
    out[i + 3] = t3;
  }
  for (; i < m; ++i) {
    double t = 0;
    for (std::int64_t j = 0; j < n; ++j) t += term(a + i * n, j);
    out[i] = t;
  }
}

}  // namespace

// The row sums of A (m x n): the harness's "read_a" (weak there, so only the judge has it), the bandwidth item's
// bound. What it writes to `row_sums` is never checked; it is written so the reads cannot be optimised away.
extern "C" void lab1_judge_read_a(const double* a, double* row_sums, std::int64_t m, std::int64_t n) {
  four_rows_at_a_time<false>(a, nullptr, row_sums, m, n);
}

// y = A x, tuned: the harness's "tuned" (weak there too), the bandwidth item's yardstick. Its outputs on a timed
// call's inputs stand for the oracle's there (lab.toml: oracle = true); a candidate's that disagree with them are
// replayed by the oracle, whose word decides. tests/unit/test_lab1_judge.cpp checks them against the oracle.
extern "C" void lab1_judge_tuned(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  four_rows_at_a_time<true>(a, x, y, m, n);
}
