// pool.h: one item measured twice becomes one measurement with the samples of both. An item whose confidence
// interval holds a tier threshold is measured again (pipeline/performance.cpp); pooling the rounds, rather than
// keeping the last measurement, is what narrows the interval: twice the pairs, about 1/sqrt(2) of the width.
#pragma once

#include <optional>

#include "measure/ceilings.h"
#include "report/report.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

// Appends `more`'s candidate and baseline samples to `into`'s and derives the medians, rates, speedup and roofline
// again. False, and `into` unchanged, when the two were set against different yardsticks (lab 3's cap took the
// baseline's place in one of them): their baseline samples are not the same quantity.
bool pool_measurements(const PerformanceItem& item, const Variables& scope, const std::optional<Ceilings>& ceilings,
                       Measurement& into, const Measurement& more);

}  // namespace grader
