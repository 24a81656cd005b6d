// worker_uid.h: a user id of its own for every worker a root grader starts, as isolate hands out box ids.
//
// The kernel keeps some limits per user: RLIMIT_NPROC counts every process and thread of a user id, and the
// pending signals, inotify instances and user namespaces are counted per user too. Were every grading's workers
// one user (nobody), a grading would count every other grading's processes: 16 gradings started together had up
// to 9 of 192 fail to start their programs or their threads (issue 38). Each worker leases an id of its own from
// a range no account uses, for as long as it runs; its process limit then counts only its own tasks, and no two
// gradings' programs can signal or trace each other either.
//
//   WorkerUid lease = WorkerUid::lease();   // root only: the child calls become(lease.user()) before execve
//   ... the worker runs, is killed and reaped; the lease's destructor returns the id ...
#pragma once

#include <sys/types.h>

#include "run/unprivileged.h"

namespace grader {

// The ids handed out: kWorkerUidCount of them from kFirstWorkerUid, between the ranges systemd allocates for
// containers (524288-1879048191) and for foreign images (from 2147352576), so no account or service owns files
// as one. The group id is the same number.
inline constexpr uid_t kFirstWorkerUid = 2000000000;
inline constexpr uid_t kWorkerUidCount = 4096;

class WorkerUid {
 public:
  // Leases a free id: a lock file per id in a root-only folder (/run/grader-worker-uids, or under /tmp where there
  // is no /run), held while the lease lives, so that every grader on this machine sees it taken. Throws
  // std::runtime_error when the folder cannot be made or every id is taken.
  static WorkerUid lease();

  WorkerUid(WorkerUid&& other) noexcept;
  WorkerUid& operator=(WorkerUid&& other) noexcept;
  WorkerUid(const WorkerUid&) = delete;
  WorkerUid& operator=(const WorkerUid&) = delete;
  ~WorkerUid();

  UnprivilegedUser user() const { return {uid_, uid_, "the worker's own user"}; }

 private:
  WorkerUid(uid_t uid, int lock_fd) : uid_(uid), lock_fd_(lock_fd) {}
  uid_t uid_ = 0;
  int lock_fd_ = -1;
};

}  // namespace grader
