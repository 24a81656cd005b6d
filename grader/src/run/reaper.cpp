// reaper.cpp: the registry of children started on purpose, and reap_orphans(). See reaper.h.
#include "run/reaper.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <vector>

#include "run/procfs.h"

namespace grader {
namespace {

std::mutex g_started_mutex;
std::set<pid_t> g_started;  // guarded by g_started_mutex

std::mutex g_unaccounted_mutex;
double g_unaccounted_seconds = 0;  // guarded by g_unaccounted_mutex

}  // namespace

std::unique_lock<std::mutex> started_children_lock() { return std::unique_lock<std::mutex>(g_started_mutex); }

void register_started_child(pid_t pid) { g_started.insert(pid); }

void forget_started_child(pid_t pid) {
  const std::lock_guard<std::mutex> lock(g_started_mutex);
  g_started.erase(pid);
}

void record_unaccounted_cpu(double seconds) {
  const std::lock_guard<std::mutex> lock(g_unaccounted_mutex);
  g_unaccounted_seconds += seconds;
}

double unaccounted_cpu_seconds() {
  const std::lock_guard<std::mutex> lock(g_unaccounted_mutex);
  return g_unaccounted_seconds;
}

void reap_orphans() {
  // Held throughout, so that no child can be started (and look like an orphan) or reaped elsewhere (and its
  // pid reused) between our reading /proc and our signal. Killed processes die at once; a killed process
  // cannot fork, so each round finds only what the previous round's victims started before they died.
  const std::lock_guard<std::mutex> lock(g_started_mutex);
  for (int round = 0; round < 1000; ++round) {
    std::vector<pid_t> orphans;
    for (const pid_t child : procfs::children_of(getpid()))
      if (g_started.count(child) == 0) orphans.push_back(child);
    if (orphans.empty()) return;
    for (const pid_t orphan : orphans) ::kill(orphan, SIGKILL);
    for (const pid_t orphan : orphans) {
      while (waitpid(orphan, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }
}

}  // namespace grader
