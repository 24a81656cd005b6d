// Broken submission for the e2e tests: corrupts_heap.
// matvec_rowptr computes the right answer, but on a 1 x 1 matrix (its item's last public case) it writes into
// memory it has already freed: that poisons the C library's free list for 776-byte blocks, and the next
// allocation of that size anywhere in the process aborts ("malloc(): unaligned tcache chunk detected").
// matvec_contiguous is correct and allocates a 97-double scratch row, so run in the same process it would be
// the one killed by SIGABRT for rowptr's bug (issue 18: lab4's heap overrun failed the correct next item).
// Expected: every item passes (each function runs in its own process, and a fresh one serves each item):
// 40 of 40 correctness points.
#include <cstdlib>
#include <vector>

#include "matvec.h"

namespace {
constexpr std::size_t kScratch = 97;  // 776 bytes: a size the harness itself never allocates
// Called through volatile pointers: the optimiser may not pair up and drop the allocations.
using Allocate = void* (*)(std::size_t);
using Release = void (*)(void*);
volatile Allocate allocate = std::malloc;
volatile Release release = std::free;
}

void matvec_rowptr(const double* const* rows, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += rows[i][j] * x[j];
    y[i] = sum;
  }
  if (m == 1 && n == 1) {
    // The bug: two buffers freed, then the last one written through its dangling pointer. The write lands
    // on the free list's link, so the next-but-one allocation of this size reads a garbage address.
    void* first = allocate(kScratch * sizeof(double));
    void* last = allocate(kScratch * sizeof(double));
    release(first);
    release(last);
    volatile unsigned char* dangling = static_cast<unsigned char*>(last);
    for (int b = 0; b < 8; ++b) dangling[b] = 0x41;
    void* reused = allocate(kScratch * sizeof(double));  // takes `last` back: the poisoned link is the list's head
    (void)reused;                                         // and leaks, like the rest of this bug
  }
}

void matvec_contiguous(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  std::vector<double> row(kScratch);  // a correct function that allocates, as many do
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
  row[0] = y[0];
}

void matvec_unrolled(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0.0;
    for (std::int64_t j = 0; j < n; ++j) sum += a[i * n + j] * x[j];
    y[i] = sum;
  }
}
