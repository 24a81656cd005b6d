// trust.h: the interface of lab90-trust, a test-only lab (tests/labs/, never in labs/ and never shipped). Its
// submissions (tests/submissions/lab90-trust/) attack the grader at run time, past the link policy, so the
// grader's run-time defences are tested end to end (tests/e2e/e2e.py, `trust-*` checks).
//
// The problem is deliberately plain: y[i] = p(x[i]) for a fixed polynomial p of degree 48. It costs the same
// arithmetic per element whoever writes it (about 100 flops), so a call on half a million elements takes tens of
// milliseconds: long enough to time, short enough to time often.
#pragma once

#include <array>
#include <cstdint>

inline constexpr int trust_degree = 48;

// p(t) = sum over k = 0 .. 48 of t^k / (k + 1). The coefficients are computed at compile time, so that the
// evaluation is multiplications and additions only. Not `inline`: each file gets its own copy, because a global
// definition that is not the lab's API (trust_eval) is refused by the link policy, in the submission as anywhere.
constexpr std::array<double, trust_degree + 1> trust_coefficients = [] {
  std::array<double, trust_degree + 1> c{};
  for (int k = 0; k <= trust_degree; ++k) c[static_cast<std::size_t>(k)] = 1.0 / (k + 1);
  return c;
}();

// p(t) by Horner's rule, in this order, so that every implementation that uses it gets the same bits.
inline double trust_p(double t) {
  double sum = trust_coefficients[trust_degree];
  for (int k = trust_degree - 1; k >= 0; --k) sum = sum * t + trust_coefficients[static_cast<std::size_t>(k)];
  return sum;
}

// y[i] = trust_p(x[i]) for i = 0 .. n-1. x and y are host arrays of n doubles that do not overlap; y holds NaN
// on entry and every element must be written before the call returns.
void trust_eval(const double* x, double* y, std::int64_t n);
