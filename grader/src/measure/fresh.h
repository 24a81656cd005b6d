// fresh.h: fresh inputs for every timed call (docs/design.md, "Measuring"). The grader names each call's
// inputs by an index; the lab kit of both candidate and judge turns (seed, index) into the same few changed
// input elements (grader/labkit/worker_protocol.md, "Fresh inputs"), so the judge can compute the expected
// outputs of exactly the inputs a timed call saw.
#pragma once

#include <cstdint>
#include <string>

namespace grader {

// Hands out call indices for one measurement, never the same one twice: no call of any worker sees inputs
// an earlier call of the measurement saw, except where same_inputs() gives the candidate the inputs the judge's
// oracle baseline just saw. Index 0 means the inputs as set up and is never handed out.
class FreshCalls {
 public:
  explicit FreshCalls(std::uint64_t seed) : seed_(seed) {}

  // The variant name for a command of `calls` calls (warm-up included) on fresh inputs: "v@seed:first".
  std::string next(const std::string& variant, int calls);
  // The index the last call of the most recent next() used.
  std::uint64_t last_call() const { return next_ - 1; }
  // The variant name for a command whose calls see the very inputs the most recent next() handed out, call for
  // call: the candidate's, after a judge baseline that is the oracle (baseline.oracle) ran on them. The judge's
  // outputs then are the expected ones, and the submission still sees every index once.
  std::string same_inputs(const std::string& variant) const { return replay(variant, last_first_); }
  // The variant name for one call on the inputs call `index` saw (the judge's expected outputs for it).
  std::string replay(const std::string& variant, std::uint64_t index) const;

 private:
  std::uint64_t seed_;
  std::uint64_t next_ = 1;
  std::uint64_t last_first_ = 1;  // the first index of the most recent next()
};

}  // namespace grader
