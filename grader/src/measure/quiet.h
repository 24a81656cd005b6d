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

  // Whether every watched process has been watched long enough that the tolerance is mostly its share of the
  // watched time, not its few clock ticks: from then on a process that works through a given share of the other
  // side's timing shows the same whether the rounds end now or after the lab's min_reps. Over the short calls of
  // lab 90 the ticks were most of it, and two pairs hid a thread that burns a CPU 50 ms after each call
  // (e2e.trust.burns_cpu_between_calls); over two of lab 4's 5 s yardstick calls they are 0.3% of the watched time.
  // False while nothing was watched.
  bool watched_long_enough() const;

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
