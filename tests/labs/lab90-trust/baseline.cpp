// baseline.cpp: the judge's trust_eval: the oracle and the baseline of every speedup in lab90-trust.
#include "trust.h"

// Tells the harness it runs in the judge's process (harness.cpp: candidate_harness_ms).
extern "C" void lab90_judge_marker() {}

void trust_eval(const double* x, double* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = trust_p(x[i]);
}
