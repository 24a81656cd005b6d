// quiet.h: "while one side is timed the other uses no CPU" (the measurement contract). The grader reads the
// CPU time of the workers that are not being timed before and after each timed command; a candidate process
// that worked while the other side was timed could only have been slowing it down.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace grader {

// CPU seconds (user + system, all threads) used so far by process `root` and every live descendant (a
// sandboxed worker is a child of bubblewrap's). Read from /proc; 0 when the process is gone.
double process_tree_cpu_seconds(pid_t root);

// Watches some processes while another is timed.
class QuietWatch {
 public:
  // `watched`: the processes that must stay idle (their pids), with a label for messages.
  struct Watched {
    pid_t pid;
    std::string label;
  };

  // Before a timed command of another process.
  void before(const std::vector<Watched>& watched);
  // After it: `timed_seconds` is how long the command took on the grader's clock.
  void after(double timed_seconds);

  // Empty when every watched process stayed within the tolerance; else the reason, for a SUSPECT verdict.
  std::string verdict() const;

 private:
  struct Account {
    std::string label;
    double used = 0;     // CPU seconds while the other side was timed
    double watched = 0;  // wall seconds of timed commands it was watched through
  };
  std::vector<Watched> current_;
  std::vector<double> start_;
  std::vector<Account> accounts_;  // by label
};

}  // namespace grader
