#include "run/sandbox.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cstdlib>

#include "core/environment.h"
#include "core/tool.h"
#include "run/memory_cgroup.h"
#include "run/process.h"
#include "run/syscall_filter.h"
#include "run/unprivileged.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

// The system, read-only. Merged-/usr systems have /lib, /bin... as links into /usr: recreate the links
// rather than binding them, so the box looks like the host.
void add_system(std::vector<std::string>& argv) {
  argv.insert(argv.end(), {"--ro-bind", "/usr", "/usr"});
  for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
    std::error_code ec;
    if (fs::is_symlink(top, ec)) {
      argv.insert(argv.end(), {"--symlink", fs::read_symlink(top).string(), top});
    } else if (fs::is_directory(top, ec)) {
      argv.insert(argv.end(), {"--ro-bind", top, top});
    }
  }
  // The loader's cache and the alternatives links (libblas.so.3 -> OpenBLAS) live in /etc; nothing
  // secret does (the box runs as an unprivileged user).
  argv.insert(argv.end(), {"--ro-bind", "/etc", "/etc"});
}

// The box's start, shared by every box: the options, the system read-only, a fresh /proc and /dev, and /tmp (a tmpfs
// of at most `tmp_bytes` when it is not 0).
std::vector<std::string> box_start(std::size_t tmp_bytes) {
  std::vector<std::string> argv = {"bwrap", "--unshare-all", "--die-with-parent", "--new-session"};
  add_system(argv);
  argv.insert(argv.end(), {"--proc", "/proc", "--dev", "/dev"});
  if (tmp_bytes > 0) argv.insert(argv.end(), {"--size", std::to_string(tmp_bytes)});
  argv.insert(argv.end(), {"--tmpfs", "/tmp"});
  return argv;
}

// The CUDA driver talks to the GPU through its device nodes and reads PCI topology from /sys.
void add_gpu(std::vector<std::string>& argv) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) argv.insert(argv.end(), {"--dev-bind", entry.path().string(), entry.path().string()});
  }
  argv.insert(argv.end(), {"--ro-bind", "/sys", "/sys"});
}

// Whether `inner` is `outer` or inside it.
bool within(const fs::path& inner, const fs::path& outer) {
  const auto rest = inner.lexically_normal().lexically_relative(outer.lexically_normal());
  return !rest.empty() && *rest.begin() != "..";
}

// Whether this bwrap sizes its tmpfs mounts (--size, bubblewrap 0.8.0 on).
bool bwrap_takes_size() {
  const ToolResult help = run_tool({"bwrap", "--help"}, fs::current_path(), 20);
  return help.output.find("--size") != std::string::npos;
}

// The syscall filter's archive, or why there is none.
fs::path find_filter_library(std::string& why_not) {
  const char* setting = std::getenv("GRADER_SYSCALL_FILTER");
  if (setting != nullptr && std::string(setting) == "off") {
    why_not = "turned off by GRADER_SYSCALL_FILTER=off";
    return {};
  }
#ifdef GRADER_CANDIDATE_FILTER_LIBRARY
  if (!syscall_filter_built()) {
    why_not = "the grader was built without libseccomp";
    return {};
  }
  // PR_GET_SECCOMP fails with EINVAL on a kernel built without seccomp.
  if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) {
    why_not = "this kernel has no seccomp";
    return {};
  }
  fs::path library = GRADER_CANDIDATE_FILTER_LIBRARY;
  std::error_code ec;
  // A grader copied elsewhere with its lib/ folder beside bin/ (the layout of the build tree) finds it there.
  if (!fs::is_regular_file(library, ec)) {
    const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path() / "lib" / library.filename();
    if (!ec && fs::is_regular_file(beside, ec)) library = beside;
  }
  if (!fs::is_regular_file(library, ec)) {
    why_not = "its library " + library.string() + " is missing (rebuild the grader)";
    return {};
  }
  return library;
#else
  why_not = "the grader was built without libseccomp (install libseccomp-dev and rebuild)";
  return {};
#endif
}

}  // namespace

Sandbox::Sandbox() {
  filter_library_ = find_filter_library(filter_why_not_);
  const char* setting = std::getenv("GRADER_SANDBOX");
  if (setting != nullptr && std::string(setting) == "off") {
    why_not_ = "turned off by GRADER_SANDBOX=off";
    return;
  }
  if (!find_on_path("bwrap")) {
    why_not_ = "bubblewrap (bwrap) is not installed";
    return;
  }
  sizes_tmpfs_ = bwrap_takes_size();
  // Prove it: build a box and run /bin/true in it, as a worker would be run (unprivileged user, limits).
  std::string pattern = (fs::temp_directory_path() / "grader-sandbox-probe-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    why_not_ = "cannot create a probe directory";
    return;
  }
  const fs::path probe = pattern;
  available_ = true;  // so wrapper() builds the real command line
  LaunchOptions launch;
  launch.wrapper = wrapper(probe, probe, {}, false);
  launch.argv = {"/bin/true"};
  launch.workdir = probe;
  launch.environment = {{"PATH", "/usr/bin:/bin"}};
  launch.limits.wall_seconds = 20;
  available_ = false;
  try {
    ChildProcess child = ChildProcess::launch(launch);
    const Ending& ending = child.finish(std::chrono::seconds(20));
    available_ = ending.kind == Ending::Kind::exited && ending.exit_code == 0;
    if (!available_) why_not_ = "bwrap cannot create a sandbox here (user namespaces disabled?)";
  } catch (const std::exception& error) {
    why_not_ = std::string("bwrap failed: ") + error.what();
  }
  std::error_code ec;
  fs::remove_all(probe, ec);
}

const Sandbox& Sandbox::get() {
  static const Sandbox sandbox;
  return sandbox;
}

std::string Sandbox::description() const {
  std::string text = available_ ? "bubblewrap sandbox (no network, read-only system, private /proc, only the "
                                  "work directory visible, new session; the work directory and /tmp in RAM, " +
                                      std::string(sizes_tmpfs_ ? "each sized to the write budget" : "not sized (bwrap before 0.8)") + ")"
                                : no_sandbox_words + why_not_;
  if (!filter_library_.empty())
    text += "; seccomp syscall filter in the candidate (no new processes or programs, no signals to or "
            "tracing of other processes, no sockets, namespaces, mounts, perf events or io_uring; threads "
            "only where the lab has them)";
  else
    text += "; no syscall filter: " + filter_why_not_;
  // Per-user limits: each worker its own user where the grader is root (run/worker_uid.h).
  text += drops_privileges() ? "; each worker its own user id (its own process limit)"
                             : "; workers run as this user (one process limit shared with everything this user runs)";
  std::string cgroup_why;
  MemoryCgroup::available(&cgroup_why);
  return text + "; " + cgroup_why;
}

std::vector<std::string> Sandbox::wrapper(const fs::path& writable, const fs::path& cwd, const std::vector<fs::path>& readable,
                                          bool gpu) const {
  if (!available_) return {};
  std::vector<std::string> argv = box_start(0);
  if (gpu) add_gpu(argv);
  for (const auto& dir : readable) argv.insert(argv.end(), {"--ro-bind", dir.string(), dir.string()});
  argv.insert(argv.end(), {"--bind", writable.string(), writable.string(), "--chdir", cwd.string(), "--"});
  return argv;
}

std::vector<std::string> Sandbox::worker_wrapper(const fs::path& workdir, const std::vector<fs::path>& readable, bool gpu,
                                                 std::size_t written_bytes, const std::vector<fs::path>& writable) const {
  if (!available_) return {};
  const std::size_t size = sizes_tmpfs_ ? written_bytes : 0;
  std::vector<std::string> argv = box_start(size);
  if (gpu) add_gpu(argv);
  // Mounts stack in order: a folder around the work directory first, the tmpfs on it, then what lies within it.
  for (const auto& dir : readable)
    if (!within(dir, workdir)) argv.insert(argv.end(), {"--ro-bind", dir.string(), dir.string()});
  if (size > 0) argv.insert(argv.end(), {"--size", std::to_string(size)});
  argv.insert(argv.end(), {"--tmpfs", workdir.string()});
  for (const auto& dir : readable)
    if (within(dir, workdir)) argv.insert(argv.end(), {"--ro-bind", dir.string(), dir.string()});
  for (const auto& dir : writable) argv.insert(argv.end(), {"--bind", dir.string(), dir.string()});
  argv.insert(argv.end(), {"--chdir", workdir.string(), "--"});
  return argv;
}

}  // namespace grader
