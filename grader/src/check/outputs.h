// outputs.h: the verdict on a whole set of outputs (every array a call returned against the expected ones), in
// one line a student can act on. compare.h checks one array; this is what the pipeline and the measuring stage
// ask of a call.
#pragma once

#include <string>
#include <vector>

#include "data/array.h"
#include "spec/lab_spec.h"

namespace grader {

struct OutputsCheck {
  bool passed = true;
  bool oracle_invalid = false;  // the expected outputs hold NaN or Inf: the lab is broken, not the student
  std::string summary;          // the failures, "y: 3 of 100 elements wrong; worst at [7]: ..."
};

OutputsCheck check_outputs(const std::vector<Array>& got, const std::vector<Array>& expected, const Tolerance& tolerance);

}  // namespace grader
