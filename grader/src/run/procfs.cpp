// procfs.cpp: scans of /proc for the process runner. A process that exits mid-scan is skipped, not an error.
#include "run/procfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

namespace grader::procfs {
namespace {

// Calls visit(pid) for every process /proc lists.
template <class Visit>
void for_each_process(Visit visit) {
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (pid > 0 && *end == '\0') visit(pid);
  }
  closedir(proc);
}

// The whole text of a small /proc file; empty when the process has gone.
std::string read_proc_file(long pid, const char* name) {
  const std::string path = "/proc/" + std::to_string(pid) + "/" + name;
  std::string text;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char chunk[4096];
  ssize_t got;
  while ((got = read(fd, chunk, sizeof chunk)) > 0) text.append(chunk, got);
  close(fd);
  return text;
}

// Field `number` of a /proc/<pid>/stat text, numbered as in proc(5) (1 is the pid), or -1.
long stat_field(const std::string& stat, int number) {
  // The command name (field 2) may contain spaces and parentheses: count fields from its closing ')'.
  const auto name_end = stat.rfind(')');
  if (name_end == std::string::npos) return -1;
  const char* at = stat.c_str() + name_end + 1;
  for (int field = 3;; ++field) {
    while (*at == ' ') ++at;
    if (*at == '\0') return -1;
    if (field == number) return std::strtol(at, nullptr, 10);
    while (*at != '\0' && *at != ' ') ++at;
  }
}

// The first number after `key` in a /proc/<pid>/status text ("Uid:\t1000\t1000..." gives 1000), or -1.
long status_value(const std::string& status, const char* key) {
  const auto at = status.find(key);
  if (at == std::string::npos) return -1;
  return std::strtol(status.c_str() + at + std::char_traits<char>::length(key), nullptr, 10);
}

constexpr int kStatParent = 4;
constexpr int kStatProcessGroup = 5;
constexpr int kStatResidentPages = 24;
constexpr int kStatUserTicks = 14;
constexpr int kStatSystemTicks = 15;

}  // namespace

std::size_t group_rss_bytes(pid_t pgid) {
  static const long page_bytes = sysconf(_SC_PAGESIZE);
  std::size_t pages = 0;
  for_each_process([&](long pid) {
    const std::string stat = read_proc_file(pid, "stat");
    if (stat_field(stat, kStatProcessGroup) != pgid) return;
    const long resident = stat_field(stat, kStatResidentPages);
    if (resident > 0) pages += static_cast<std::size_t>(resident);
  });
  return pages * static_cast<std::size_t>(page_bytes);
}

long tasks_of_user(uid_t uid) {
  long tasks = 0;
  for_each_process([&](long pid) {
    const std::string status = read_proc_file(pid, "status");
    if (status_value(status, "\nUid:") != static_cast<long>(uid)) return;  // the first Uid value is the real one
    const long threads = status_value(status, "\nThreads:");
    tasks += threads > 0 ? threads : 1;
  });
  return tasks;
}

pid_t parent_of(pid_t pid) {
  const long parent = stat_field(read_proc_file(pid, "stat"), kStatParent);
  return parent > 0 ? static_cast<pid_t>(parent) : -1;
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  for_each_process([&](long pid) {
    if (stat_field(read_proc_file(pid, "stat"), kStatParent) == parent) children.push_back(static_cast<pid_t>(pid));
  });
  return children;
}

double own_cpu_seconds(const std::vector<pid_t>& pids) {
  static const double ticks = static_cast<double>(std::max(1L, sysconf(_SC_CLK_TCK)));
  long total = 0;
  for (const pid_t pid : pids) {
    const std::string stat = read_proc_file(pid, "stat");
    total += std::max(0L, stat_field(stat, kStatUserTicks)) + std::max(0L, stat_field(stat, kStatSystemTicks));
  }
  return static_cast<double>(total) / ticks;
}

std::vector<pid_t> descendants_of(pid_t root) {
  std::map<pid_t, std::vector<pid_t>> children;  // one scan of /proc: parent -> children
  for_each_process([&](long pid) {
    const long parent = stat_field(read_proc_file(pid, "stat"), kStatParent);
    if (parent > 0) children[static_cast<pid_t>(parent)].push_back(static_cast<pid_t>(pid));
  });
  std::vector<pid_t> found;
  std::vector<pid_t> frontier = {root};
  while (!frontier.empty()) {
    const pid_t next = frontier.back();
    frontier.pop_back();
    for (const pid_t child : children[next]) {
      found.push_back(child);
      frontier.push_back(child);
    }
  }
  return found;
}

}  // namespace grader::procfs
