// foreign_load.cpp: see foreign_load.h. Reads /proc/stat for our CPUs' busy time and /proc/<pid>/stat for
// this process tree's own.
#include "measure/foreign_load.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "core/cpus.h"
#include "run/reaper.h"

namespace grader {

namespace {

double clock_ticks() {
  static const double ticks = static_cast<double>(std::max(1L, ::sysconf(_SC_CLK_TCK)));
  return ticks;
}

// The busy time of the CPUs this grader may use. Load on a node's other CPUs (other SLURM tasks, other
// containers) takes nothing from a timing here, so it is not counted.
double our_cpus_busy_seconds() {
  static const std::vector<int> ours = affinity_cpus();
  std::ifstream stat("/proc/stat");
  return busy_seconds_of(stat, ours);
}

struct ProcessTimes {
  pid_t parent = 0;
  double seconds = 0;  // utime + stime + cutime + cstime: its own and that of the children it reaped
};

// Fields after the command name, which is in parentheses and may hold spaces: state ppid ... utime(14)
// stime(15) cutime(16) cstime(17), numbered as in proc(5).
bool read_times(const std::filesystem::path& stat_file, ProcessTimes& times) {
  std::ifstream in(stat_file);
  std::string line;
  if (!std::getline(in, line)) return false;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(line.substr(close + 2));
  std::vector<std::string> f;
  for (std::string field; fields >> field && f.size() < 15;) f.push_back(field);
  if (f.size() < 15) return false;
  try {
    times.parent = static_cast<pid_t>(std::stol(f[1]));
    times.seconds = (std::stod(f[11]) + std::stod(f[12]) + std::stod(f[13]) + std::stod(f[14])) / clock_ticks();
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

// This process and every live descendant (workers, the sandbox around them, compilers). A descendant that
// exited was reaped by one of them, so its time is already in that one's cutime and cstime.
double own_tree_seconds() {
  std::map<pid_t, ProcessTimes> all;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    ProcessTimes times;
    if (read_times(entry.path() / "stat", times)) all[static_cast<pid_t>(std::stol(name))] = times;
  }
  std::map<pid_t, std::vector<pid_t>> children;
  for (const auto& [pid, times] : all) children[times.parent].push_back(pid);
  double total = 0;
  std::vector<pid_t> pending{::getpid()};
  while (!pending.empty()) {
    const pid_t pid = pending.back();
    pending.pop_back();
    if (auto found = all.find(pid); found != all.end()) total += found->second.seconds;
    for (pid_t child : children[pid]) pending.push_back(child);
  }
  // Sandboxed workers that were killed took their time with them (run/reaper.h): it was ours.
  return total + unaccounted_cpu_seconds();
}

}  // namespace

ForeignLoad::ForeignLoad()
    : cpus_busy_seconds_(our_cpus_busy_seconds()), own_seconds_(own_tree_seconds()), start_(std::chrono::steady_clock::now()) {}

double ForeignLoad::cores() const {
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (wall <= 0) return 0;
  const double others = (our_cpus_busy_seconds() - cpus_busy_seconds_) - (own_tree_seconds() - own_seconds_);
  return std::max(0.0, others / wall);
}

}  // namespace grader
