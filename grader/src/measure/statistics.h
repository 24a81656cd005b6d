// statistics.h: the summaries a timing is reported by. Medians and quartiles, not means: one trial
// slowed by another process must not move a grade.
#pragma once

#include <vector>

namespace grader {

struct Summary {
  double median = 0;
  double q1 = 0;
  double q3 = 0;
  double relative_spread() const { return median > 0 ? (q3 - q1) / median : 0; }  // IQR / median
};

Summary summarize(std::vector<double> samples);  // empty samples give zeros

}  // namespace grader
