// answer_storage.h: the memory a worker's large answers are read into, kept for the next answer (issue 35).
//
// A GPU lab's timed round brings its outputs back, and the judge's check of it brings the expected ones: lab 6's
// tall y is 256 MiB, lab 7's C 64 MiB, ten or more of them in an item. A fresh buffer that size costs a page fault
// per 4 KiB and its zeroing: 0.14 s for 256 MiB on a 2-vCPU EPYC VM, against 0.01 s to write one already in use. The
// worker keeps the buffers of answers it was given back (Worker::keep_storage) and reads the next answer into one.
//
//   AnswerStorage storage;
//   std::vector<std::byte> bytes = storage.take(n);  // n bytes, to be overwritten whole
//   ...
//   storage.keep(arrays);                             // their buffers, for later answers
#pragma once

#include <cstddef>
#include <vector>

#include "data/array.h"

namespace grader {

class AnswerStorage {
 public:
  // Answers smaller than this cost little to allocate: not kept.
  static constexpr std::size_t least_kept_bytes = std::size_t{1} << 20;
  // At most this many buffers kept: a candidate's round holds its outputs and perhaps the last unchecked round's, a
  // judge's check its expected outputs and perhaps the oracle's last ones. Each may be as large as the lab's largest
  // output (lab 6: 256 MiB), and they live as long as the worker.
  static constexpr std::size_t most_kept = 2;

  // A buffer of `bytes` bytes whose contents are stale (to be overwritten whole): the smallest kept one that holds
  // them, else a new one (zeroed). Throws std::bad_alloc as a vector would.
  std::vector<std::byte> take(std::size_t bytes);

  // Keeps the buffers of `arrays` (their bytes are left empty), the largest first, up to most_kept in all.
  void keep(std::vector<Array>& arrays);

  std::size_t kept() const { return kept_.size(); }

 private:
  std::vector<std::vector<std::byte>> kept_;
};

}  // namespace grader
