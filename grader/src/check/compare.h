// compare.h: does a candidate's output match the expected one? (pipeline stage 6, element by element)
//
// An element passes when |got - expected| <= atol + rtol * |expected|. NaN or Inf where a finite value is
// expected never passes, whatever the tolerance: outputs are poisoned with NaN before each call, so a NaN is
// usually an element the code never wrote. NaN in the expected output means the judge (or the dataset) is
// broken; that is flagged as an internal error, never blamed on the submission.
//
//   CheckResult r = compare_arrays(got, expected, Tolerance{1e-12, 0});
//   r.passed;    // false
//   r.summary;   // "4 of 100 elements wrong; worst at [2, 7]: expected 3.25, got NaN (never written, or NaN
//                //  computed); first wrong at [0, 1], [2, 7], [5, 0], [9, 9]"
//
// One pass over the two arrays' bytes, no copies, so outputs of 10^8 elements cost one sequential read each.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "data/array.h"
#include "spec/lab_spec.h"  // Tolerance

namespace grader {

// One element, located for a person: flat index, coordinates, and both values as text in the array's dtype.
struct ElementReport {
  std::int64_t flat_index = 0;
  std::vector<std::int64_t> index;  // row-major coordinates: {12, 7}
  double expected = 0;
  double got = 0;
  std::string expected_text;  // exact for every dtype (i64 beyond 2^53 included): "3.25", "NaN"
  std::string got_text;
  double abs_error = 0;  // |got - expected|; infinite when either is not finite and they differ
  double allowed = 0;    // atol + rtol * |expected|
};

struct CheckResult {
  std::string name;  // the output array's name
  bool passed = false;
  // The expected side is unusable (NaN in it, bytes that do not match its shape): a fault of the lab or the
  // grader, reported as such and never as the submission's.
  bool internal_error = false;
  Tolerance tolerance;

  std::int64_t elements = 0;    // of the expected array
  std::int64_t mismatches = 0;  // elements that fail the tolerance
  std::int64_t expected_nan = 0;
  std::optional<ElementReport> worst;    // the element furthest past (or closest to) its tolerance
  std::vector<ElementReport> first_mismatches;  // up to max_listed_mismatches, in index order

  double max_abs_error = 0;        // infinite when some element is NaN or Inf and should not be
  double relative_error_norm = 0;  // ||got - expected||_2 / ||expected||_2 over finite expected elements;
                                   // 0 when equal, infinite when expected is all zeros and got is not

  std::string summary;  // one line for a person; does not repeat the array's name
};

constexpr std::size_t max_listed_mismatches = 5;

// Compares one output. A dtype or shape that differs fails at once ("dtype f32, expected f64",
// "shape [3, 5], expected [5, 3]"). Throws std::invalid_argument for a negative or NaN tolerance (the spec
// should have refused it).
CheckResult compare_arrays(const Array& got, const Array& expected, const Tolerance& tolerance);

// Compares every expected output with the candidate's output of the same name, in the expected list's order;
// then one failed result for each output the candidate sent that is not expected, or sent twice.
std::vector<CheckResult> compare_outputs(std::span<const Array> got, std::span<const Array> expected,
                                         const Tolerance& tolerance);

bool all_passed(std::span<const CheckResult> results);
bool any_internal_error(std::span<const CheckResult> results);

}  // namespace grader
