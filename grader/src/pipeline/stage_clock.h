// stage_clock.h: where a grading's wall time goes, stage by stage (build, correctness, timing, ...), so that what
// is not measurement can be found and cut. A stage runs from the moment it is entered until the next one is;
// a stage entered again (a second item's timing) adds to its total. The report keeps the totals in the order the
// stages first ran (report.h, stage_seconds).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace grader::pipeline {

class StageClock {
 public:
  void enter(const std::string& stage) {
    stop();
    current_ = stage;
    since_ = std::chrono::steady_clock::now();
  }
  // Ends the current stage (the grading is over).
  void stop() {
    if (current_.empty()) return;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - since_).count();
    auto it = totals_.begin();
    while (it != totals_.end() && it->first != current_) ++it;
    if (it == totals_.end()) totals_.emplace_back(current_, seconds);
    else it->second += seconds;
    current_.clear();
  }
  // The stage running now; empty before the first and after stop().
  const std::string& current() const { return current_; }
  const std::vector<std::pair<std::string, double>>& totals() const { return totals_; }

 private:
  std::string current_;
  std::chrono::steady_clock::time_point since_;
  std::vector<std::pair<std::string, double>> totals_;
};

}  // namespace grader::pipeline
