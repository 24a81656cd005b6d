// reaper.h: the children the grader started on purpose, and the sweep that kills every other one.
//
//   auto registering = started_children_lock();
//   const pid_t pid = fork();
//   if (pid > 0) register_started_child(pid);
//   registering.unlock();
//   ... waitpid(pid, ...); forget_started_child(pid);
#pragma once

#include <sys/types.h>

#include <mutex>

namespace grader {

// No process outlives its grading. The grader is a child subreaper, so every process a worker leaves behind
// (a fork that called setsid included: a new session leaves the group, not the subreaper's tree) becomes the
// grader's own child once its parent dies. Every child the grader forks on purpose is registered while it
// lives (ChildProcess, run_tool), so the others can be told apart: reap_orphans() kills and reaps them. It
// runs whenever a ChildProcess ends. Fork under started_children_lock() and register before unlocking.
std::unique_lock<std::mutex> started_children_lock();
void register_started_child(pid_t pid);  // call with the lock held
void forget_started_child(pid_t pid);    // once it is reaped
void reap_orphans();

// CPU time the kernel will never hand back to us as children's time. A sandbox's pid namespace reaps what is
// left in it when its init dies with SIGCHLD ignored, and the time of processes reaped that way is added to no
// one: a sandboxed worker killed at the end of its work vanishes with every second it computed. ChildProcess
// records their own time just before it kills them; ForeignLoad (measure/foreign_load.h), which sets the
// machine's busy time against ours, adds it back, or our workers would read as other programs' load.
void record_unaccounted_cpu(double seconds);
double unaccounted_cpu_seconds();  // everything recorded in this process so far

}  // namespace grader
