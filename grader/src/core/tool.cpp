#include "core/tool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "run/reaper.h"

namespace grader {

ToolResult run_tool(const std::vector<std::string>& argv, const std::filesystem::path& cwd, double timeout_seconds,
                    std::size_t output_cap) {
  ToolResult result;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.output = "cannot create a pipe: " + std::string(std::strerror(errno));
    return result;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // Registered, so that run/process.cpp's sweep of orphans never takes a tool for one.
  auto registering = started_children_lock();
  const pid_t pid = ::fork();
  if (pid > 0) register_started_child(pid);
  registering.unlock();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) _exit(126);  // empty: stay where the grader is
    ::execvp(args[0], args.data());
    const char* message = "cannot execute the tool\n";
    (void)!::write(2, message, std::strlen(message));
    _exit(127);
  }
  ::close(out[1]);
  if (pid < 0) {
    ::close(out[0]);
    result.output = "cannot fork: " + std::string(std::strerror(errno));
    return result;
  }
  ::setpgid(pid, pid);

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds);
  char buffer[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t got = ::read(out[0], buffer, sizeof buffer);
    if (got <= 0) break;
    if (result.output.size() < output_cap)
      result.output.append(buffer, std::min<std::size_t>(static_cast<std::size_t>(got), output_cap - result.output.size()));
  }
  ::close(out[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  forget_started_child(pid);
  ::kill(-pid, SIGKILL);  // whatever the tool left behind in its group
  if (!result.timed_out && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

std::string quote_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& a : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t\"'$\\") == std::string::npos;
    line += plain ? a : "'" + a + "'";
  }
  return line;
}

}  // namespace grader
