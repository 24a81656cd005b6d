// written_files.cpp: see written_files.h.
#include "run/written_files.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <string>

#include "run/procfs.h"

namespace grader {
namespace {

namespace fs = std::filesystem;

// A folder of many small files must not make every poll slow: past this many entries the sum so far stands.
constexpr int kMostEntriesSummed = 20000;

// The bytes in use on the file system mounted at `path`, or -1 when it cannot be read.
long long used_bytes(const std::string& path) {
  struct statvfs info {};
  if (::statvfs(path.c_str(), &info) != 0) return -1;
  return static_cast<long long>(info.f_blocks - info.f_bfree) * static_cast<long long>(info.f_frsize);
}

std::size_t folder_bytes(const fs::path& folder) {
  std::size_t total = 0;
  int entries = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator() && entries < kMostEntriesSummed; it.increment(ec), ++entries) {
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) == 0) total += static_cast<std::size_t>(info.st_blocks) * 512;
  }
  return total;
}

}  // namespace

std::size_t WrittenFiles::bytes() {
  if (!sandboxed_) return folder_bytes(workdir_);
  for (int attempt = 0; attempt < 2; ++attempt) {
    // The process found earlier may have gone and its pid been handed to a process of another box (pids wrap at
    // 32768 on many machines, and a class graded at once starts thousands): one whose parent is no longer the
    // leader is not ours, and its box's files would be charged to this worker.
    if (inside_ > 0 && procfs::parent_of(inside_) != leader_) inside_ = -1;
    if (inside_ <= 0) {
      // bwrap itself stays outside the box; the first process below it is inside (it makes the mounts).
      const auto below = procfs::children_of(leader_);
      if (below.empty()) return 0;
      inside_ = below.front();
    }
    // A place counts when the box has a file system of its own there: one that is the host's (the box is not
    // built yet, or the place is a read-only view of a host folder) holds nothing the worker wrote.
    const std::string root = "/proc/" + std::to_string(inside_) + "/root";
    long long total = 0;
    bool seen = true;
    for (const std::string& place : {workdir_.string(), std::string("/tmp")}) {
      struct stat boxed {}, host {};
      if (::stat((root + place).c_str(), &boxed) != 0) {
        seen = false;
        break;
      }
      if (::stat(place.c_str(), &host) == 0 && host.st_dev == boxed.st_dev) continue;
      total += std::max(0LL, used_bytes(root + place));
    }
    if (seen) return static_cast<std::size_t>(total);
    inside_ = -1;  // that process has gone: look again
  }
  return 0;
}

}  // namespace grader
