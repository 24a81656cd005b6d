// correctness_groups.h: which correctness items a GPU lab may grade at once (pipeline/correctness.cpp). An item's
// variant runs in a process of its own that the next item of the same variant (and build flags) reuses, so items that
// share a variant, directly or through others, are one group, graded in order on one thread; groups are independent.
#pragma once

#include <cstddef>
#include <vector>

#include "spec/lab_spec.h"

namespace grader {

// The items' indices in groups, each group in the items' order, the groups in the order of their first item.
std::vector<std::vector<std::size_t>> correctness_groups(const std::vector<CorrectnessItem>& items);

}  // namespace grader
