#include "core/scratch.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>  // renameat2
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
// A folder is made under this prefix, locked, and only then renamed to the name the reaper judges.
constexpr const char* unborn_prefix = ".new-";
// An unborn folder older than this was left by a process that died between making and renaming it.
constexpr auto unborn_lifetime = std::chrono::minutes(10);
// Folders of graders before the directory lock: "<pid>", live while their process holds a lock on this file.
constexpr const char* legacy_alive_marker = ".alive";

struct State {
  std::mutex mutex;
  std::optional<fs::path> folder;
  bool keep = false;
  int lock_fd = -1;  // the folder's own directory, locked (flock) for as long as this process runs
};

State& state() {
  static State s;
  return s;
}

// Every folder from / down to `path` lets others pass (o+x): what a worker's user needs to reach a work folder.
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
    std::cerr << "grader: TMPDIR " << base.string() << " is inside a folder that other users cannot enter, and a root "
              << "grader runs students' programs as other users; using /tmp for work folders instead\n";
    base = "/tmp";
    if (!others_can_pass(base)) throw std::runtime_error("/tmp is not reachable by other users; a root grader cannot run students' programs");
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

// A directory's fd, locked exclusively; -1 when it cannot be opened or someone holds its lock.
int lock_folder(const fs::path& folder, bool wait) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -1;
  if (::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Removes `folder` if no process holds its lock, and only the folder whose lock we took: the name must still lead to
// the same directory (a dead folder's name is never given again, but this costs one stat).
void remove_if_unlocked(const fs::path& folder) {
  const int fd = lock_folder(folder, false);
  if (fd < 0) return;
  struct stat locked {}, named {};
  std::error_code ec;
  if (::fstat(fd, &locked) == 0 && ::lstat(folder.c_str(), &named) == 0 && locked.st_dev == named.st_dev &&
      locked.st_ino == named.st_ino && !fs::exists(folder / keep_marker, ec))
    fs::remove_all(folder, ec);
  ::close(fd);
}

// A folder of a grader from before the directory lock: live while its .alive file is locked, or, without one, while
// its pid runs.
bool legacy_owner_alive(const fs::path& folder, pid_t pid) {
  const int fd = ::open((folder / legacy_alive_marker).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return process_alive(pid);
  const bool locked_by_owner = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return locked_by_owner;
}

bool young(const fs::path& path) {
  std::error_code ec;
  const auto written = fs::last_write_time(path, ec);
  return ec || fs::file_time_type::clock::now() - written < unborn_lifetime;
}

// Makes this process's folder in `parent`: made under an unborn name, locked, then renamed, so that it is locked
// before any reaper can judge it, whatever the interleaving. Returns the folder; its lock is left in `lock_fd`.
fs::path make_locked_folder(const fs::path& parent, int& lock_fd) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string unborn = (parent / (std::string(unborn_prefix) + "XXXXXX")).string();
    if (::mkdtemp(unborn.data()) == nullptr)
      throw std::runtime_error("cannot create a work folder in " + parent.string() + ": " + std::strerror(errno));
    ::chmod(unborn.c_str(), 0711);
    lock_fd = lock_folder(unborn, true);  // nobody else locks a folder whose name only we know yet
    const std::string random = fs::path(unborn).filename().string().substr(std::strlen(unborn_prefix));
    const fs::path folder = parent / (std::to_string(::getpid()) + "-" + random);
    // No replacing: a folder already under that name (one in a million million) is someone's; try another name.
    if (lock_fd >= 0 && ::renameat2(AT_FDCWD, unborn.c_str(), AT_FDCWD, folder.c_str(), RENAME_NOREPLACE) == 0) return folder;
    const int error = errno;
    if (lock_fd >= 0) ::close(lock_fd);
    lock_fd = -1;
    std::error_code ec;
    fs::remove_all(unborn, ec);
    if (error != EEXIST) throw std::runtime_error("cannot create the work folder in " + parent.string() + ": " + std::strerror(error));
  }
  throw std::runtime_error("cannot find a free name for a work folder in " + parent.string());
}

}  // namespace

void reap_stale_scratch(const fs::path& parent) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(unborn_prefix, 0) == 0) {
      if (!young(entry.path())) remove_if_unlocked(entry.path());
      continue;
    }
    const auto dash = name.find('-');
    const std::string pid_digits = name.substr(0, dash);
    if (pid_digits.empty() || pid_digits.find_first_not_of("0123456789") != std::string::npos || pid_digits.size() > 9) continue;
    if (dash != std::string::npos) {
      remove_if_unlocked(entry.path());  // made locked: unlocked means its process has ended
      continue;
    }
    const pid_t pid = static_cast<pid_t>(std::stol(pid_digits));
    if (pid == ::getpid() || fs::exists(entry.path() / keep_marker, ec) || legacy_owner_alive(entry.path(), pid)) continue;
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
    folder = make_locked_folder(parent, s.lock_fd);
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
  if (s.lock_fd >= 0) ::close(s.lock_fd);
  s.lock_fd = -1;
}

}  // namespace grader
