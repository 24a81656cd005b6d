// Not a threat: the plain loop, the judge's own code. Its correctness and its honest timing earn every point,
// so the grader's run-time defences (threads left running, outputs that change, the outside timing) must not
// flag plain code; the "lying harness" item, where the harness reports a tenth of the time, must still be caught.
// Expected verdict: "eval" and "honest timing" pass with full points; "lying harness" SUSPECT (the grader's
// outside timing disagrees with the reported time), 0 points.
#include "trust.h"

void trust_eval(const double* x, double* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = trust_p(x[i]);
}
