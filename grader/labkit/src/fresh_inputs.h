// fresh_inputs.h: the changes the lab kit makes to a problem's inputs before each fresh call, and their undoing
// (labkit.h, Problem::inputs_changed, says what a harness sees of them). Private to the lab kit's runtime.
#pragma once

#include <labkit/labkit.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace labkit {

// Changes and restores the inputs for fresh calls (Problem::inputs_changed in labkit.h says what and why).
//
// Two changes per call. A few elements of every input take other elements' values (fresh_elements()), so a cache
// keyed on the inputs misses. And where a call has two inputs or more, the smallest one whose values are all
// finite is rotated as a whole by a secret number of elements, never a whole number of rows: a submission that
// keeps a copy of the last inputs and diffs against it would otherwise update a matrix product's answer for a
// few changed elements in O(n) and spend the rest of the call spinning to a believable time. After a rotation no
// part of the last answer holds: row i of A now ends with the start of row i + 1, so every entry of C = A B
// needs its whole sum again (docs/threat-model.md). A rotation costs one copy of the smaller operand, made from a
// copy of its original: on the device when the harness rotates the copy its calls read (Problem::rotate_copy),
// else in host memory, where the harness is told that the whole array changed, not every element of it.
class FreshInputs {
 public:
  // Restores what setup() built, then applies call `index`'s changes (index 0 is no change).
  void apply(Problem& problem, std::uint64_t seed, std::uint64_t index);

  bool pristine() const { return saved_.empty() && rotation_ == 0; }

 private:
  struct Saved {
    std::size_t array;
    std::int64_t offset;
    unsigned char bytes[8];
  };

  // The smallest input of two or more elements whose values are all finite (NaN may mark entries a harness
  // leaves unused, which must stay where they are), where there are two inputs or more; none otherwise (a
  // reduction's one input: diffing it costs a full read, which is the work itself).
  std::size_t array_to_rotate() const;
  // 1 to n - 1 elements, never a whole number of rows (the last extent): rotating by whole rows only permutes
  // the rows of A, and so of C, which a cached C follows for free.
  static std::int64_t rotation(const ArrayRef& array, Rng& rng);
  // The rotated input becomes setup()'s original rotated left by `by` elements (0: the original itself).
  void copy_rotated_from_pristine(std::int64_t by);
  // The harness's own arrays: inputs() hands out const views of memory the harness owns and may change.
  void* element(std::size_t array, std::int64_t offset);

  std::vector<ArrayRef> arrays_;
  std::vector<Saved> saved_;
  std::size_t rotated_ = 0;    // which input is rotated (arrays_.size(): none); chosen at the first fresh call
  std::int64_t rotation_ = 0;  // by how many elements it is rotated left now
  std::vector<unsigned char> pristine_;  // the rotated input as setup() made it (rotated on the host)
  bool rotated_elsewhere_ = false;       // the harness rotates the copy the calls read (Problem::rotate_copy)
};

}  // namespace labkit
