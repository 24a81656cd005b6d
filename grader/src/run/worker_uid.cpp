// worker_uid.cpp: leasing worker user ids (see worker_uid.h).
#include "run/worker_uid.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace grader {
namespace {

// A folder only root can write, shared by every grader on this machine: /run where it exists (a tmpfs, emptied at
// boot), else /tmp. One planted by another user, or a link, is refused rather than trusted.
const std::string& lease_folder() {
  static const std::string folder = [] {
    const std::string path = ::access("/run", W_OK) == 0 ? "/run/grader-worker-uids" : "/tmp/grader-worker-uids";
    ::mkdir(path.c_str(), 0700);
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid() || (info.st_mode & 022) != 0)
      throw std::runtime_error("cannot lease worker user ids: " + path + " is not a folder that only this user can write");
    return path;
  }();
  return folder;
}

}  // namespace

WorkerUid WorkerUid::lease() {
  const std::string& folder = lease_folder();
  // Start where other graders are unlikely to look first, so that concurrent leases rarely contend for one lock.
  const uid_t start = static_cast<uid_t>(::getpid()) * 37u % kWorkerUidCount;
  for (uid_t step = 0; step < kWorkerUidCount; ++step) {
    const uid_t uid = kFirstWorkerUid + (start + step) % kWorkerUidCount;
    const std::string lock = folder + "/" + std::to_string(uid);
    const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw std::runtime_error("cannot lease a worker user id: " + lock + ": " + std::strerror(errno));
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return WorkerUid(uid, fd);
    ::close(fd);
  }
  throw std::runtime_error("cannot lease a worker user id: all " + std::to_string(kWorkerUidCount) + " are in use");
}

WorkerUid::WorkerUid(WorkerUid&& other) noexcept
    : uid_(other.uid_), lock_fd_(std::exchange(other.lock_fd_, -1)) {}

WorkerUid& WorkerUid::operator=(WorkerUid&& other) noexcept {
  if (this != &other) {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    uid_ = other.uid_;
    lock_fd_ = std::exchange(other.lock_fd_, -1);
  }
  return *this;
}

WorkerUid::~WorkerUid() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace grader
