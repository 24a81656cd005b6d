#include "core/scratch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace grader {

namespace fs = std::filesystem;

namespace {

constexpr const char* keep_marker = ".keep";
// Held (flock) by the folder's process for as long as it runs. A pid alone could mislead: /tmp may be shared with
// another pid namespace (a container), where the same number is another process or none.
constexpr const char* alive_marker = ".alive";

struct State {
  std::mutex mutex;
  std::optional<fs::path> folder;
  bool keep = false;
  int alive_fd = -1;
};

State& state() {
  static State s;
  return s;
}

// Every folder from / down to `path` lets others pass (o+x): what user nobody needs to reach a work folder.
bool others_can_pass(const fs::path& path) {
  fs::path walked;
  for (const auto& part : fs::absolute(path)) {
    walked /= part;
    struct stat info {};
    if (::stat(walked.c_str(), &info) != 0) return false;
    if (S_ISDIR(info.st_mode) && (info.st_mode & S_IXOTH) == 0) return false;
  }
  return true;
}

fs::path temporary_base() {
  const char* tmpdir = std::getenv("TMPDIR");
  fs::path base = tmpdir != nullptr && *tmpdir ? fs::path(tmpdir) : fs::path("/tmp");
  if (::geteuid() == 0 && !others_can_pass(base)) {
    std::cerr << "grader: TMPDIR " << base.string() << " is inside a folder that user nobody cannot enter, and a root "
              << "grader runs students' programs as nobody; using /tmp for work folders instead\n";
    base = "/tmp";
    if (!others_can_pass(base)) throw std::runtime_error("/tmp is not reachable by user nobody; a root grader cannot run students' programs");
  }
  return base;
}

// A folder of ours with mode 0711: created, or found already there, ours, a real folder (not a link someone planted).
bool own_private_folder(const fs::path& path) {
  if (::mkdir(path.c_str(), 0711) != 0 && errno != EEXIST) return false;
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) return false;
  return ::chmod(path.c_str(), 0711) == 0;
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// Whether the process that made `folder` still runs: it holds the lock on its .alive file; a folder without one (made
// before the file exists) is judged by its pid.
bool owner_alive(const fs::path& folder, pid_t pid) {
  const int fd = ::open((folder / alive_marker).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return process_alive(pid);
  const bool locked_by_owner = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases the lock if we took it
  return locked_by_owner;
}

}  // namespace

void reap_stale_scratch(const fs::path& parent) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos || name.size() > 9) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == ::getpid() || fs::exists(entry.path() / keep_marker, ec) || owner_alive(entry.path(), pid)) continue;
    fs::remove_all(entry.path(), ec);
  }
}

const fs::path& scratch_root() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (s.folder) return *s.folder;
  const fs::path base = temporary_base();
  const fs::path parent = base / ("grader-" + std::to_string(::geteuid()));
  fs::path folder;
  if (own_private_folder(parent)) {
    reap_stale_scratch(parent);
    folder = parent / std::to_string(::getpid());
    std::error_code ec;
    fs::remove_all(folder, ec);  // a dead process of the same pid, long ago
    if (!own_private_folder(folder)) throw std::runtime_error("cannot create the work folder " + folder.string() + ": " + std::strerror(errno));
    s.alive_fd = ::open((folder / alive_marker).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (s.alive_fd >= 0) ::flock(s.alive_fd, LOCK_EX);  // uncontended: the folder is new and ours
  } else {
    // Someone else owns grader-<uid> (or it is a link): a private folder of our own, which nobody else reaps.
    std::string pattern = (base / ("grader-" + std::to_string(::geteuid()) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a work folder in " + base.string() + ": " + std::strerror(errno));
    folder = pattern;
    ::chmod(folder.c_str(), 0711);
  }
  ::setenv("TMPDIR", folder.c_str(), 1);
  s.folder = folder;
  return *s.folder;
}

void keep_scratch() {
  const fs::path& folder = scratch_root();
  std::lock_guard lock(state().mutex);
  state().keep = true;
  std::ofstream(folder / keep_marker) << "kept by --keep-workdir\n";
}

void remove_scratch() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (!s.folder || s.keep) return;
  std::error_code ec;
  fs::remove_all(*s.folder, ec);
  if (s.alive_fd >= 0) ::close(s.alive_fd);
  s.alive_fd = -1;
}

}  // namespace grader
