// next_step.h: which of a benchmark's hints (lab.toml `hints`) a timed result has earned: the first, in file
// order, whose `below` its figure has not reached and whose `when` its code's facts meet. The text, JSON, Gradescope and HTML reports show it as "next step".
#pragma once

#include <string>

#include "report/report.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

// Empty when no hint applies (the result is past every `below`, or the item has none). A hint on the roofline
// never applies where the machine has no calibration to place the result on it. `scope`: the machine's variables
// and the item's parameters, for a `below` written as an expression.
std::string next_step(const PerformanceItem& item, const Variables& scope, const Measurement& measurement);
// The same where `scope` also holds the variant's facts and counters (inspect/fact_list.h) for the hints' `when`;
// `measurement` may be absent (an item not timed here: a CUDA lab without a GPU), and only hints without `below`
// then apply.
std::string next_step(const PerformanceItem& item, const Variables& scope, const Measurement* measurement);

}  // namespace grader
