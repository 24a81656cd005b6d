#include "measure/timed_sides.h"

#include <sstream>
#include <vector>

namespace grader {

bool TimedSides::timed(Worker& worker, const std::string& name, int warmup, int reps, bool outputs, TimedCalls& into) {
  std::vector<QuietWatch::Watched> watched;
  if (&worker != &cand && cand.alive()) watched.push_back({cand.process().pid(), "submission's process"});
  if (baseline_is_candidate_code && &worker != separate_baseline.get() && separate_baseline->alive())
    watched.push_back({separate_baseline->process().pid(), "submission's baseline process"});
  quiet.before(watched);
  const auto began = measure_clock::now();
  const bool ok = worker.time(name, warmup, reps, outputs, timeout, into);
  quiet.after(measure_seconds_since(began));
  return ok;
}

std::string measure_fixed(double value, int digits) {
  std::ostringstream text;
  text.precision(digits);
  text << std::fixed << value;
  return text.str();
}

std::string measure_shown(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

}  // namespace grader
