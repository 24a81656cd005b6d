// memory_cgroup.cpp: finding a writable memory hierarchy, making and removing one leaf per worker (see
// memory_cgroup.h).
#include "run/memory_cgroup.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

namespace grader {
namespace {

enum class Version { none, v1, v2 };

struct Hierarchy {
  Version version = Version::none;
  std::string parent;  // the folder leaves are made in
  std::string why;     // what the report says: the kind, or why there is none
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool write_file(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool written = ::write(fd, value.data(), value.size()) == static_cast<ssize_t>(value.size());
  ::close(fd);
  return written;
}

bool has_word(const std::string& list, const std::string& word, char separator) {
  std::stringstream words(list);
  std::string item;
  while (std::getline(words, item, separator)) {
    while (!item.empty() && (item.back() == '\n' || item.back() == ' ')) item.pop_back();
    if (item == word) return true;
  }
  return false;
}

// Where the memory controller's hierarchy is mounted: (mount point, the hierarchy's path at that mount point).
struct Mount {
  std::string point, root;
};

std::optional<Mount> find_mount(Version version) {
  std::ifstream mountinfo("/proc/self/mountinfo");
  std::string line;
  while (std::getline(mountinfo, line)) {
    std::istringstream fields(line);
    std::vector<std::string> before;
    std::string field;
    while (fields >> field && field != "-") before.push_back(field);
    std::string type, source, options;
    fields >> type >> source >> options;
    if (before.size() < 5) continue;
    if ((version == Version::v2 && type == "cgroup2") || (version == Version::v1 && type == "cgroup" && has_word(options, "memory", ',')))
      return Mount{before[4], before[3]};
  }
  return std::nullopt;
}

// This process's cgroup in the hierarchy that holds `controller` ("" for v2), from /proc/self/cgroup.
std::optional<std::string> own_cgroup(const std::string& controller) {
  std::ifstream cgroups("/proc/self/cgroup");
  std::string line;
  while (std::getline(cgroups, line)) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    if (controller.empty() ? controllers.empty() && line.compare(0, first, "0") == 0 : has_word(controllers, controller, ','))
      return line.substr(second + 1);
  }
  return std::nullopt;
}

// The folder of `path` (a cgroup path as /proc/self/cgroup gives it) under `mount`.
std::string folder_of(const Mount& mount, std::string path) {
  if (mount.root != "/" && path.compare(0, mount.root.size(), mount.root) == 0) path.erase(0, mount.root.size());
  return mount.point + path;
}

// A leaf can be made, limited and removed in `parent`: proven once, with a probe.
bool can_make_leaves(const std::string& parent, const std::string& limit_file, std::string& why) {
  const std::string probe = parent + "/grader-probe-" + std::to_string(::getpid());
  if (::mkdir(probe.c_str(), 0755) != 0 && errno != EEXIST) {
    why = "cannot make a cgroup in " + parent + ": " + std::strerror(errno);
    return false;
  }
  const bool limits = write_file(probe + "/" + limit_file, std::to_string(64u << 20));
  ::rmdir(probe.c_str());
  if (!limits) why = "cannot set " + limit_file + " in " + parent;
  return limits;
}

Hierarchy find_hierarchy() {
  Hierarchy found;
  if (const char* setting = std::getenv("GRADER_MEMORY_CGROUP"); setting != nullptr && std::string(setting) == "off") {
    found.why = "turned off by GRADER_MEMORY_CGROUP=off";
    return found;
  }
  // cgroup v1's memory controller, if it is bound there: the unified hierarchy of a hybrid system has none then.
  if (const auto mount = find_mount(Version::v1)) {
    if (const auto own = own_cgroup("memory")) {
      found.parent = folder_of(*mount, *own);
      if (can_make_leaves(found.parent, "memory.limit_in_bytes", found.why)) {
        found.version = Version::v1;
        found.why = "a memory cgroup per worker (cgroup v1)";
      }
      return found;
    }
  }
  const auto mount = find_mount(Version::v2);
  if (!mount) {
    found.why = "no cgroup hierarchy with the memory controller is mounted";
    return found;
  }
  if (!has_word(read_file(mount->point + "/cgroup.controllers"), "memory", ' ')) {
    found.why = "cgroup v2 at " + mount->point + " has no memory controller";
    return found;
  }
  // Not below our own cgroup: a cgroup with processes in it (ours) cannot hand controllers to its children. A
  // folder at the top, which holds no process, can.
  found.parent = mount->point + "/grader-workers";
  ::mkdir(found.parent.c_str(), 0755);
  if (!write_file(mount->point + "/cgroup.subtree_control", "+memory") ||
      !write_file(found.parent + "/cgroup.subtree_control", "+memory")) {
    found.why = "cannot enable the memory controller for " + found.parent + ": " + std::strerror(errno);
    return found;
  }
  if (can_make_leaves(found.parent, "memory.max", found.why)) {
    found.version = Version::v2;
    found.why = "a memory cgroup per worker (cgroup v2)";
  }
  return found;
}

const Hierarchy& hierarchy() {
  static const Hierarchy found = find_hierarchy();
  return found;
}

// Leaves whose tasks had not all gone when their worker was reaped (a sandbox's processes exit a moment after its
// leader): removed by the next create().
std::mutex g_busy_mutex;
std::vector<std::string> g_busy_leaves;  // guarded by g_busy_mutex

void remove_leaf(const std::string& path) {
  if (::rmdir(path.c_str()) == 0 || errno == ENOENT) return;
  const std::lock_guard<std::mutex> lock(g_busy_mutex);
  g_busy_leaves.push_back(path);
}

void remove_busy_leaves() {
  const std::lock_guard<std::mutex> lock(g_busy_mutex);
  std::vector<std::string> still;
  for (const auto& path : g_busy_leaves)
    if (::rmdir(path.c_str()) != 0 && errno == EBUSY) still.push_back(path);
  g_busy_leaves = std::move(still);
}

// "oom_kill N" of memory.events (v2) or memory.oom_control (v1).
long oom_kills(const std::string& text) {
  const auto at = text.find("oom_kill ");
  return at == std::string::npos ? 0 : std::atol(text.c_str() + at + 9);
}

}  // namespace

bool MemoryCgroup::available(std::string* why) {
  const bool made = hierarchy().version != Version::none;
  if (why != nullptr) *why = made ? hierarchy().why : "no memory cgroup per worker (" + hierarchy().why + "): memory limited per process";
  return made;
}

std::optional<MemoryCgroup> MemoryCgroup::create(std::size_t limit_bytes) {
  const Hierarchy& where = hierarchy();
  if (where.version == Version::none) return std::nullopt;
  remove_busy_leaves();
  static std::atomic<unsigned> counter{0};
  MemoryCgroup cgroup;
  cgroup.path_ = where.parent + "/grader-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  if (::mkdir(cgroup.path_.c_str(), 0755) != 0) return std::nullopt;
  const std::string limit = std::to_string(limit_bytes);
  bool limited;
  if (where.version == Version::v2) {
    limited = write_file(cgroup.path_ + "/memory.max", limit);
    write_file(cgroup.path_ + "/memory.swap.max", "0");  // no swap controller: nothing to say
    write_file(cgroup.path_ + "/memory.oom.group", "1");   // the OOM killer ends the worker whole
  } else {
    limited = write_file(cgroup.path_ + "/memory.limit_in_bytes", limit);
    write_file(cgroup.path_ + "/memory.memsw.limit_in_bytes", limit);  // memory and swap together: no swapping out
  }
  cgroup.procs_fd_ = limited ? ::open((cgroup.path_ + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC) : -1;
  if (cgroup.procs_fd_ < 0) return std::nullopt;  // the destructor removes the leaf
  return cgroup;
}

MemoryCgroup::MemoryCgroup(MemoryCgroup&& other) noexcept
    : path_(std::move(other.path_)), procs_fd_(std::exchange(other.procs_fd_, -1)) {
  other.path_.clear();
}

MemoryCgroup& MemoryCgroup::operator=(MemoryCgroup&& other) noexcept {
  if (this != &other) {
    this->~MemoryCgroup();
    path_ = std::move(other.path_);
    other.path_.clear();
    procs_fd_ = std::exchange(other.procs_fd_, -1);
  }
  return *this;
}

MemoryCgroup::~MemoryCgroup() {
  if (procs_fd_ >= 0) ::close(procs_fd_);
  procs_fd_ = -1;
  if (!path_.empty()) remove_leaf(path_);
  path_.clear();
}

bool MemoryCgroup::oom_killed() const {
  if (path_.empty()) return false;
  return oom_kills(read_file(path_ + "/memory.events")) > 0 || oom_kills(read_file(path_ + "/memory.oom_control")) > 0;
}

}  // namespace grader
