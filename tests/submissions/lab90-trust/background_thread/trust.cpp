// Threat: work left running after the call returns. Small inputs (the correctness cases) are computed at once,
// so every answer checked is right. Large ones (the timed benchmarks) are handed to a detached thread, and the
// call returns at once: the thread writes y over the next milliseconds, and a timer around the call sees almost
// nothing. lab90 lets std::thread through the link policy, so this reaches run time (lab1 refuses it earlier:
// tests/submissions/lab1/background_thread).
// Expected verdict: "eval" passes; both timed items SUSPECT (outputs changed after the call returned, or its
// thread still running), 0 performance points.
#include <thread>

#include "trust.h"

namespace {

void evaluate(const double* x, double* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = trust_p(x[i]);
}

}  // namespace

void trust_eval(const double* x, double* y, std::int64_t n) {
  if (n < 100000) {
    evaluate(x, y, n);
    return;
  }
  std::thread([=] { evaluate(x, y, n); }).detach();
}
