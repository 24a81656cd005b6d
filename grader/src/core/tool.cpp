#include "core/tool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

#include "run/reaper.h"
#include "run/unprivileged.h"

namespace grader {

ToolResult run_tool(const std::vector<std::string>& argv, const std::filesystem::path& cwd, double timeout_seconds,
                    std::size_t output_cap) {
  ToolOptions options;
  options.timeout_seconds = timeout_seconds;
  options.output_cap = output_cap;
  return run_tool(argv, cwd, options);
}

ToolResult run_tool(const std::vector<std::string>& argv, const std::filesystem::path& cwd, const ToolOptions& options) {
  const double timeout_seconds = options.timeout_seconds;
  const std::size_t output_cap = options.output_cap;
  ToolResult result;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    result.output = "cannot create a pipe: " + std::string(std::strerror(errno));
    return result;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment_storage = options.environment;
  std::vector<char*> environment;
  for (auto& entry : environment_storage) environment.push_back(entry.data());
  environment.push_back(nullptr);
  const bool change_user = options.as_build_user && drops_privileges();

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
    close_descriptors_from(3);
    // What a student's build writes, the workers (another user) must read: objects, the executable.
    if (options.as_build_user) ::umask(022);
    if (change_user && !become(build_user)) {
      for (const char* part : {"cannot change to ", build_user.name, "\n"}) (void)!::write(2, part, std::strlen(part));
      _exit(126);
    }
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) _exit(126);  // empty: stay where the grader is
    if (options.environment.empty()) {
      ::execvp(args[0], args.data());
    } else {
      ::execvpe(args[0], args.data(), environment.data());
    }
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
