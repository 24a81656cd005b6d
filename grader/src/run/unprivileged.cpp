#include "run/unprivileged.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "run/reaper.h"

namespace grader {

bool drops_privileges() { return ::geteuid() == 0; }

bool become(const UnprivilegedUser& user) {
  return ::setgroups(0, nullptr) == 0 && ::setgid(user.gid) == 0 && ::setuid(user.uid) == 0;
}

void close_descriptors_from(int first) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, first, ~0u, 0) == 0) return;
#endif
  // Kernels before 5.9: one by one, up to the descriptor limit.
  rlimit open_files{};
  int highest = 1024;
  if (::getrlimit(RLIMIT_NOFILE, &open_files) == 0 && open_files.rlim_cur != RLIM_INFINITY)
    highest = static_cast<int>(std::min<rlim_t>(open_files.rlim_cur, 1u << 20));
  for (int fd = first; fd < highest; ++fd) ::close(fd);
}

bool can_read_as(const UnprivilegedUser& user, const std::filesystem::path& path) {
  if (!drops_privileges()) return true;
  auto registering = started_children_lock();  // so that the sweep of orphans never takes the probe for one
  const pid_t pid = ::fork();
  if (pid > 0) register_started_child(pid);
  registering.unlock();
  if (pid == 0) {
    if (!become(user)) ::_exit(2);
    ::_exit(::open(path.c_str(), O_RDONLY | O_CLOEXEC) >= 0 ? 0 : 1);
  }
  if (pid < 0) return true;  // cannot tell: say the worse
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  forget_started_child(pid);
  return !WIFEXITED(status) || WEXITSTATUS(status) != 1;
}

}  // namespace grader
