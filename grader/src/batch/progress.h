// progress.h: what a batch shows while it runs. On a terminal, one bar redrawn in place, with each
// finished student printed above it:
//
//     alice                 60 / 80  passed         14.2 s
//   [###########.........]  12/40  ETA 4m05s  now: bob (compiling the submission), carol (performance: ...)
//
// Elsewhere (a log file, a SLURM task's output), one plain line per finished student:
//
//   [12/40] alice: 60 / 80, passed (14.2 s)
//
// Safe to call from the grading threads at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <ostream>
#include <string>

namespace grader {

class BatchProgress {
 public:
  BatchProgress(std::size_t total, bool terminal, std::ostream& out);

  void started(const std::string& id);
  void step(const std::string& id, const std::string& line);  // the pipeline's status line for this student
  void finished(const std::string& id, double score, double max_score, const std::string& status, double seconds);
  // A student this run leaves ungraded (`grader batch --gpus` with no GPU left): off the bar, with why.
  void abandoned(const std::string& id, const std::string& why);
  void note(const std::string& line);  // a line of its own, above the bar
  void close();                        // clears the bar

 private:
  void draw_locked();
  void clear_locked();

  std::mutex mutex_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool terminal_;
  std::ostream& out_;
  std::map<std::string, std::string> in_flight_;  // id -> its last status line
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

// "4m05s", "12s", "1h02m".
std::string short_duration(double seconds);

}  // namespace grader
