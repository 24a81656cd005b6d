// score_item.h: one timed performance item into its verdict and points: the roofline must be known where the
// item is graded by it, nothing past what is physically possible is believed, and then the tiers decide.
#pragma once

#include "report/report.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

// `test.measurement` is filled in; `scope` holds the machine's variables and the item's parameters.
void score_measurement(const PerformanceItem& item, const Variables& scope, TestResult& test);

}  // namespace grader
