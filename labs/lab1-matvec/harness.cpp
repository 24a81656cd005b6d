// harness.cpp: lab 1's problem for the lab kit. Builds A (m x n) and x (n) from the case's seed, calls one of
// the three matvec variants, and hands y back. Linked with the student's matvec.cpp (the candidate) and with
// baseline.cpp (the judge); see grader/labkit/include/labkit/labkit.h for the contract.
//
// Two more variants are the judge's alone (baseline.cpp says how): "tuned", a fast matvec, the yardstick of the
// bandwidth item, timed in the same rounds as the student's matvec; and "read_a", A read once and nothing else,
// that item's bound. They are weak symbols that baseline.cpp defines, so the candidate has neither.
#include <labkit/labkit.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "matvec.h"

extern "C" __attribute__((weak)) void lab1_judge_tuned(const double* a, const double* x, double* y, std::int64_t m, std::int64_t n);
extern "C" __attribute__((weak)) void lab1_judge_read_a(const double* a, double* row_sums, std::int64_t m, std::int64_t n);

namespace {

struct Matvec : labkit::Problem {
  std::int64_t m = 0, n = 0;
  std::vector<double> a, x, y;

  // The row-pointer layout: one allocation per row, as the course's baseline builds it. Built with the inputs: the
  // judge times rowptr in every round (the speedup item's yardstick) and the candidate for its compare row, and a
  // copy of 800 MB (10000 x 10000) built in setup runs while the other process sets up its own, where on first use it
  // ran alone in the timing turn, once in the judge's first round and once in the candidate's compare row (about
  // 0.5 s each on the course's 2-vCPU VM). Each process then holds A twice (1.6 GB), within limits.memory_mb.
  std::vector<std::unique_ptr<double[]>> row_storage;
  std::vector<const double*> rows;

  std::vector<std::string> variants() const override { return {"rowptr", "contiguous", "unrolled", "tuned", "read_a"}; }

  void setup(labkit::Case& c) override {
    m = c.params.integer("m");
    n = c.params.integer("n");
    if (m < 1 || n < 1) throw labkit::Error("lab1 needs m >= 1 and n >= 1, got m=" + std::to_string(m) + ", n=" + std::to_string(n));
    c.input("a", a, {m, n}, -1.0, 1.0);
    c.input("x", x, {n}, -1.0, 1.0);
    y.resize(static_cast<std::size_t>(m));
    row_storage.clear();
    rows.clear();
    build_rows();
  }

  void poison() override { labkit::poison(y); }

  void run(std::string_view variant) override {
    if (variant == "rowptr") {
      build_rows();
      matvec_rowptr(rows.data(), x.data(), y.data(), m, n);
    } else if (variant == "contiguous") {
      matvec_contiguous(a.data(), x.data(), y.data(), m, n);
    } else if (variant == "unrolled") {
      matvec_unrolled(a.data(), x.data(), y.data(), m, n);
    } else if (variant == "tuned" || variant == "read_a") {
      // A weak symbol nobody defined is null: this is the candidate, which has no judge variants.
      if (lab1_judge_tuned == nullptr || lab1_judge_read_a == nullptr)
        throw labkit::Error(std::string(variant) + " is the judge's own variant; the candidate has none");
      if (variant == "tuned") lab1_judge_tuned(a.data(), x.data(), y.data(), m, n);
      else lab1_judge_read_a(a.data(), y.data(), m, n);
    } else {
      throw labkit::Error("lab1 has no variant '" + std::string(variant) + "' (rowptr, contiguous, unrolled, tuned, read_a)");
    }
  }

  // Copying A into rows takes longer than one matvec: do it before the clock starts, even with no warm-up.
  double time_once(std::string_view variant) override {
    if (variant == "rowptr") build_rows();
    return labkit::Problem::time_once(variant);
  }

  // Fresh inputs (labkit.h): the row-pointer layout is a copy of A, so the changed elements go there too.
  void inputs_changed(const std::vector<Changed>& changed) override {
    if (rows.empty()) return;
    for (const auto& array : changed) {
      if (array.name != "a") continue;
      if (array.all) {  // A itself rotated: every row again
        for (std::int64_t r = 0; r < m; ++r)
          std::copy_n(a.begin() + r * n, n, row_storage[static_cast<std::size_t>(r)].get());
        continue;
      }
      for (std::int64_t e : array.elements) row_storage[static_cast<std::size_t>(e / n)][e % n] = a[static_cast<std::size_t>(e)];
    }
  }

  std::vector<labkit::ArrayRef> inputs() override { return {labkit::ref("a", a, {m, n}), labkit::ref("x", x, {n})}; }
  std::vector<labkit::ArrayRef> outputs() override { return {labkit::ref("y", y, {m})}; }

 private:
  void build_rows() {
    if (!rows.empty()) return;
    row_storage.reserve(static_cast<std::size_t>(m));
    rows.reserve(static_cast<std::size_t>(m));
    for (std::int64_t i = 0; i < m; ++i) {
      auto row = std::make_unique_for_overwrite<double[]>(static_cast<std::size_t>(n));
      std::copy_n(a.data() + i * n, n, row.get());
      rows.push_back(row.get());
      row_storage.push_back(std::move(row));
    }
  }
};

}  // namespace

LABKIT_PROBLEM(Matvec)
