// spec_items.h: the graded parts of lab.toml, [[correctness]] and [[performance]] (internal to grader/src/spec).
#pragma once

#include <vector>

#include "spec/lab_spec.h"
#include "spec/spec_reader.h"

namespace grader {

// A tolerance table; a key left out keeps the value of `inherited` (the enclosing item's, or the lab's).
Tolerance read_tolerance(const SpecTable& table, const Tolerance& inherited);

std::vector<CorrectnessItem> read_correctness_items(const SpecTable& root, const Tolerance& lab_tolerance);

// Reads after the correctness items, which `requires` names and whose variants gate performance points.
std::vector<PerformanceItem> read_performance_items(const SpecTable& root,
                                                    const std::vector<CorrectnessItem>& correctness,
                                                    const Tolerance& lab_tolerance);

}  // namespace grader
