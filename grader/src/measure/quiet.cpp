#include "measure/quiet.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace grader {

namespace {

struct ProcStat {
  pid_t pid = 0, ppid = 0;
  double cpu_seconds = 0;
};

bool read_stat(const std::string& pid, ProcStat& out) {
  std::ifstream file("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(file, line)) return false;
  const auto paren = line.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return false;
  std::istringstream fields(line.substr(paren + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // Fields after the name, from 3: state, ppid (4), ..., utime (14), stime (15).
  for (int index = 3; fields >> field && index <= 15; ++index) {
    if (index == 4) out.ppid = static_cast<pid_t>(std::atol(field.c_str()));
    if (index == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (index == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  out.pid = static_cast<pid_t>(std::atol(pid.c_str()));
  out.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  return true;
}

// The tolerance (verdict()): a few clock ticks, for a process that woke for a microsecond, and a share of the
// watched time.
constexpr double tolerated_ticks = 3;
constexpr double tolerated_share = 0.05;
// watched_long_enough(): the ticks at most half the share.
constexpr double least_share_over_ticks = 2;

double quiet_tick_seconds() { return 1.0 / static_cast<double>(::sysconf(_SC_CLK_TCK)); }

}  // namespace

double process_tree_cpu_seconds(pid_t root) {
  std::map<pid_t, ProcStat> all;
  if (DIR* proc = ::opendir("/proc")) {
    while (dirent* entry = ::readdir(proc)) {
      const std::string name = entry->d_name;
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      ProcStat stat;
      if (read_stat(name, stat)) all[stat.pid] = stat;
    }
    ::closedir(proc);
  }
  std::multimap<pid_t, pid_t> children;
  for (const auto& [pid, stat] : all) children.emplace(stat.ppid, pid);
  double total = 0;
  std::vector<pid_t> pending = {root};
  while (!pending.empty()) {
    const pid_t pid = pending.back();
    pending.pop_back();
    auto found = all.find(pid);
    if (found == all.end()) continue;
    total += found->second.cpu_seconds;
    auto [first, last] = children.equal_range(pid);
    for (auto it = first; it != last; ++it) pending.push_back(it->second);
  }
  return total;
}

void QuietWatch::before(const std::vector<Watched>& watched) {
  current_ = watched;
  start_.clear();
  for (const auto& w : watched) start_.push_back(process_tree_cpu_seconds(w.pid));
}

void QuietWatch::after(double timed_seconds) {
  for (std::size_t i = 0; i < current_.size(); ++i) {
    const double used = process_tree_cpu_seconds(current_[i].pid) - start_[i];
    Account* account = nullptr;
    for (auto& a : accounts_)
      if (a.label == current_[i].label) account = &a;
    if (account == nullptr) account = &accounts_.emplace_back(Account{current_[i].label, 0, 0});
    if (used > 0) account->used += used;
    account->watched += timed_seconds;
  }
  current_.clear();
}

std::string QuietWatch::verdict() const {
  // CPU time is counted in clock ticks (10 ms): a process that worked for a microsecond may show one. An idle
  // worker (blocked on its command pipe, its OpenMP threads parked) uses none; the allowance is 3 ticks and
  // 5% of the watched time, while a thread working through the other side's timing uses all of it.
  for (const auto& a : accounts_) {
    const double allowed = tolerated_ticks * quiet_tick_seconds() + tolerated_share * a.watched;
    if (a.used > allowed) {
      std::ostringstream text;
      text.precision(0);
      text << std::fixed << "the " << a.label << " used " << a.used * 1e3 << " ms of CPU time while the other side was "
           << "being timed or it rested between its calls (" << a.watched * 1e3 << " ms): code that keeps working "
           << "between its calls slows the yardstick down";
      return text.str();
    }
  }
  return "";
}

bool QuietWatch::watched_long_enough() const {
  if (accounts_.empty()) return false;
  for (const auto& a : accounts_)
    if (tolerated_share * a.watched < least_share_over_ticks * tolerated_ticks * quiet_tick_seconds()) return false;
  return true;
}

}  // namespace grader
