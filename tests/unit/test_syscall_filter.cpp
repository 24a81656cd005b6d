// test_syscall_filter.cpp: the candidate's seccomp filter (grader/src/run/syscall_filter.h), installed in a forked
// child that then makes one raw system call: a refused call must end the child by SIGSYS with the call named on
// stderr; an allowed one must work. Raw calls (syscall(2), inline assembly), because what the filter is for is
// code that the link policy cannot see. Without libseccomp or kernel seccomp the whole file is skipped (77).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <functional>
#include <string>
#include <thread>

#include "run/syscall_filter.h"

using grader::SyscallFilterOptions;

namespace {

struct Outcome {
  bool exited = false;
  int code = -1;    // exit code, when exited
  int signal = 0;   // terminating signal, when not
  std::string err;  // what the child wrote to stderr
};

// Forks; the child installs the filter, runs `body` and exits with what it returns. Its stderr comes back.
Outcome in_filtered_child(const SyscallFilterOptions& options, const std::function<int()>& body) {
  int err[2];
  REQUIRE(pipe(err) == 0);
  std::fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    dup2(err[1], STDERR_FILENO);
    close(err[0]);
    const rlimit no_core = {0, 0};  // SIGSYS dumps core by default
    setrlimit(RLIMIT_CORE, &no_core);
    if (grader::install_syscall_filter(options) != 0) _exit(90);
    _exit(body());
  }
  close(err[1]);
  Outcome outcome;
  char chunk[512];
  ssize_t got;
  while ((got = read(err[0], chunk, sizeof chunk)) > 0) outcome.err.append(chunk, static_cast<std::size_t>(got));
  close(err[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  outcome.exited = WIFEXITED(status);
  if (outcome.exited) outcome.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

// Whether int 0x80 reaches the kernel's i386 system calls here, tried without a filter (20 is getpid there).
bool kernel_offers_i386_syscalls() {
  std::fflush(nullptr);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    ::signal(SIGSEGV, SIG_DFL);  // doctest's crash handler would report the expected fault as a failed test
    long result;
    asm volatile("int $0x80" : "=a"(result) : "a"(20L) : "memory");
    _exit(result > 0 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// The child was stopped by the filter, which named `call`.
void check_refused(const Outcome& outcome, const std::string& call) {
  INFO("stderr: " << outcome.err << " exit " << outcome.code << " signal " << outcome.signal);
  CHECK(outcome.signal == SIGSYS);
  CHECK(outcome.err.find(std::string(grader::kForbiddenSyscallMarker) + call) != std::string::npos);
}

void check_allowed(const Outcome& outcome) {
  INFO("stderr: " << outcome.err << " signal " << outcome.signal);
  CHECK(outcome.exited);
  CHECK(outcome.code == 0);
}

// The filter cannot be tested here: skip the whole executable with the reason.
struct SkipWithoutSeccomp {
  SkipWithoutSeccomp() {
    const char* why = nullptr;
    if (!grader::syscall_filter_built()) why = "the grader was built without libseccomp";
    else if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0) why = "this kernel has no seccomp";
    if (why != nullptr) {
      std::printf("skipped: %s\n", why);
      std::exit(77);
    }
  }
} skip_without_seccomp;

SyscallFilterOptions with_threads(bool threads) {
  SyscallFilterOptions options;
  options.threads = threads;
  return options;
}

}  // namespace

TEST_CASE("an unfiltered child may do all of it: the tests below measure the filter, not the machine") {
  // Without the filter, the same raw calls succeed (or fail with an ordinary errno), so a SIGSYS below is the
  // filter's doing.
  int err[2];
  REQUIRE(pipe(err) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const long child = syscall(SYS_fork);
    if (child == 0) _exit(0);
    if (child < 0) _exit(1);
    waitpid(static_cast<pid_t>(child), nullptr, 0);
    const long fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
    _exit(fd >= 0 || errno == EAFNOSUPPORT ? 0 : 2);
  }
  close(err[0]);
  close(err[1]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("new processes are refused: fork, vfork, clone without CLONE_THREAD") {
  check_refused(in_filtered_child(with_threads(true), [] { return static_cast<int>(syscall(SYS_fork)) == 0 ? 0 : 3; }),
                "fork");
  check_refused(in_filtered_child(with_threads(true), [] { return static_cast<int>(syscall(SYS_vfork)) == 0 ? 0 : 3; }),
                "vfork");
  check_refused(in_filtered_child(with_threads(true),
                                  [] { return static_cast<int>(syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)) == 0 ? 0 : 3; }),
                "clone");
}

TEST_CASE("inline assembly gets no further than syscall(2)") {
  check_refused(in_filtered_child(with_threads(false),
                                  [] {
                                    long result;
                                    asm volatile("syscall" : "=a"(result) : "a"(57L) : "rcx", "r11", "memory");  // fork
                                    return result == 0 ? 0 : 3;
                                  }),
                "fork");
  // The i386 ABI (int 0x80) is a foreign one: refused as a whole, whatever the call (2 is fork there). A kernel
  // without 32-bit emulation (switched off by default on AMD SEV and Intel TDX guests) has no such entry at all:
  // int 0x80 faults before any filter sees it, and there is nothing left to refuse.
  if (!kernel_offers_i386_syscalls()) {
    MESSAGE("this kernel has no i386 system call entry (int 0x80 faults unfiltered): the foreign ABI is unreachable");
    return;
  }
  const Outcome foreign = in_filtered_child(with_threads(false), [] {
    long result;
    asm volatile("int $0x80" : "=a"(result) : "a"(2L) : "memory");
    return result == 0 ? 0 : 3;
  });
  INFO(foreign.err);
  CHECK(foreign.signal == SIGSYS);
  CHECK(foreign.err.find("foreign ABI") != std::string::npos);
}

TEST_CASE("programs are refused: execve") {
  check_refused(in_filtered_child(with_threads(false),
                                  [] {
                                    char* argv[] = {const_cast<char*>("/bin/true"), nullptr};
                                    return static_cast<int>(syscall(SYS_execve, "/bin/true", argv, environ));
                                  }),
                "execve");
}

TEST_CASE("threads: allowed where the lab has them, refused elsewhere; clone3 falls back to clone") {
  check_allowed(in_filtered_child(with_threads(true), [] {
    int value = 0;
    std::thread worker([&] { value = 42; });
    worker.join();
    return value == 42 ? 0 : 4;
  }));
  // glibc blocks every signal around the clone of a new thread, so the kernel, forcing SIGSYS through, ends the
  // process without running the reporter: the signal is all there is (the grader's verdict still says SIGSYS
  // is the filter's). A raw clone with CLONE_THREAD is named.
  const Outcome thread = in_filtered_child(with_threads(false), [] {
    std::thread worker([] {});
    worker.join();
    return 0;
  });
  CHECK(thread.signal == SIGSYS);
  check_refused(in_filtered_child(with_threads(false), [] {
    const long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
    return static_cast<int>(syscall(SYS_clone, flags, 0, 0, 0, 0));  // refused before any thread exists
  }), "clone");
  // clone3's flags are out of the filter's sight: it fails with ENOSYS, which glibc answers by using clone.
  check_allowed(in_filtered_child(with_threads(true), [] {
    const long result = syscall(SYS_clone3, nullptr, 0);
    return result == -1 && errno == ENOSYS ? 0 : 5;
  }));
}

TEST_CASE("signals go only to the process itself") {
  check_allowed(in_filtered_child(with_threads(true), [] {
    if (syscall(SYS_kill, getpid(), 0) != 0) return 6;
    if (syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), 0) != 0) return 7;
    return 0;
  }));
  check_refused(in_filtered_child(with_threads(true), [] { return static_cast<int>(syscall(SYS_kill, getppid(), 0)); }),
                "kill");
  check_refused(in_filtered_child(with_threads(true), [] { return static_cast<int>(syscall(SYS_kill, -1, 0)); }), "kill");
  check_refused(in_filtered_child(with_threads(true),
                                  [] { return static_cast<int>(syscall(SYS_tgkill, getppid(), getppid(), 0)); }),
                "tgkill");
}

TEST_CASE("other processes' memory and tracing are refused: ptrace, process_vm_readv") {
  check_refused(in_filtered_child(with_threads(true),
                                  [] { return static_cast<int>(syscall(SYS_ptrace, 2 /* PEEKDATA */, getppid(), 0, 0)); }),
                "ptrace");
  check_refused(in_filtered_child(with_threads(true),
                                  [] { return static_cast<int>(syscall(SYS_process_vm_readv, getppid(), 0, 0, 0, 0, 0)); }),
                "process_vm_readv");
}

TEST_CASE("sockets are refused; a socketpair (no one else can reach it) is not") {
  check_refused(in_filtered_child(with_threads(true),
                                  [] { return static_cast<int>(syscall(SYS_socket, AF_INET, SOCK_STREAM, 0)); }),
                "socket");
  check_refused(in_filtered_child(with_threads(true),
                                  [] { return static_cast<int>(syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0)); }),
                "socket");
  check_allowed(in_filtered_child(with_threads(true), [] {
    int pair[2];
    return socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0 ? 0 : 8;
  }));
  // In CUDA labs (the driver opens one) Unix sockets are let through; the network still is not.
  SyscallFilterOptions sanitizer = with_threads(true);
  sanitizer.unix_sockets = true;
  check_allowed(in_filtered_child(sanitizer, [] { return syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0) >= 0 ? 0 : 9; }));
  check_refused(in_filtered_child(sanitizer, [] { return static_cast<int>(syscall(SYS_socket, AF_INET, SOCK_STREAM, 0)); }),
                "socket");
}

TEST_CASE("the one call ncu profiles may open TCP sockets on its own loopback; other families stay refused") {
  SyscallFilterOptions profiled = with_threads(true);
  profiled.unix_sockets = true;
  profiled.loopback_sockets = true;
  for (const int family : {AF_UNIX, AF_INET, AF_INET6}) {
    INFO("family " << family);
    check_allowed(in_filtered_child(profiled, [family] { return syscall(SYS_socket, family, SOCK_STREAM, 0) >= 0 ? 0 : 9; }));
  }
  // The C library's netlink view of the interfaces (getifaddrs), and nothing else of netlink.
  check_allowed(in_filtered_child(profiled, [] { return syscall(SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE) >= 0 ? 0 : 9; }));
  check_refused(in_filtered_child(profiled, [] { return static_cast<int>(syscall(SYS_socket, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT)); }),
                "socket");
  // Raw packets, the families between, and a family with junk in the upper half of its register.
  for (const long family : {long(AF_UNSPEC), long(AF_PACKET), long(AF_INET + 1), long(AF_INET6 - 1), long(AF_INET6 + 1),
                            long(AF_NETLINK - 1), long(AF_NETLINK + 1), long(AF_INET) | (1L << 40)}) {
    INFO("family " << family);
    check_refused(in_filtered_child(profiled, [family] { return static_cast<int>(syscall(SYS_socket, family, SOCK_DGRAM, 0)); }),
                  "socket");
  }
  // The reporter names the family, since some families pass.
  const Outcome packet = in_filtered_child(profiled, [] { return static_cast<int>(syscall(SYS_socket, AF_PACKET, SOCK_RAW, 0)); });
  CHECK(packet.err.find(std::string(grader::kForbiddenSyscallMarker) + "socket of family " + std::to_string(AF_PACKET)) !=
        std::string::npos);
  // Without the CUDA labs' Unix sockets the option opens nothing.
  SyscallFilterOptions cpu_lab = with_threads(true);
  cpu_lab.loopback_sockets = true;
  check_refused(in_filtered_child(cpu_lab, [] { return static_cast<int>(syscall(SYS_socket, AF_INET, SOCK_STREAM, 0)); }),
                "socket");
}

TEST_CASE("leaving the process group, namespaces, mounts, perf events, io_uring, userfaultfd are refused") {
  const std::pair<long, const char*> calls[] = {
      {SYS_setsid, "setsid"},   {SYS_setpgid, "setpgid"},
      {SYS_unshare, "unshare"}, {SYS_mount, "mount"},
      {SYS_chroot, "chroot"},   {SYS_perf_event_open, "perf_event_open"},
      {SYS_io_uring_setup, "io_uring_setup"}, {SYS_userfaultfd, "userfaultfd"},
  };
  for (const auto& [number, name] : calls) {
    CAPTURE(name);
    check_refused(in_filtered_child(with_threads(true), [number = number] { return static_cast<int>(syscall(number, 0, 0, 0, 0, 0)); }),
                  name);
  }
}

TEST_CASE("the SIGSYS reporter cannot be replaced, and a blocked SIGSYS still ends the process") {
  check_refused(in_filtered_child(with_threads(true), [] {
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGSYS, &ignore, nullptr);  // refused itself
    return static_cast<int>(syscall(SYS_fork));
  }), "rt_sigaction");
  const Outcome blocked = in_filtered_child(with_threads(true), [] {
    sigset_t sys;
    sigemptyset(&sys);
    sigaddset(&sys, SIGSYS);
    sigprocmask(SIG_BLOCK, &sys, nullptr);
    return static_cast<int>(syscall(SYS_fork)) == 0 ? 0 : 3;
  });
  CHECK(blocked.signal == SIGSYS);
}

TEST_CASE("ordinary work is untouched: files, memory, pipes, eventfd, time, its own signals") {
  check_allowed(in_filtered_child(with_threads(false), [] {
    int fds[2];
    if (pipe(fds) != 0) return 10;
    if (write(fds[1], "x", 1) != 1) return 11;
    void* memory = std::malloc(64 << 20);
    if (memory == nullptr) return 12;
    std::free(memory);
    if (syscall(SYS_eventfd2, 0, 0) < 0) return 13;
    timespec now;
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) return 14;
    signal(SIGUSR1, SIG_IGN);
    raise(SIGUSR1);
    return 0;
  }));
}

// What /proc/self/status says of the speculative store bypass mitigation ("vulnerable", "thread mitigated", ...).
static std::string store_bypass_state() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return "";
  char line[256];
  std::string state;
  while (std::fgets(line, sizeof line, status) != nullptr)
    if (std::string(line).rfind("Speculation_Store_Bypass:", 0) == 0) state = line;
  std::fclose(status);
  return state;
}

TEST_CASE("the filter leaves the candidate's speculation mitigations as the judge's, so both run alike") {
  // Where the kernel turns the mitigation on for every seccomp filter (before 5.16, or
  // spec_store_bypass_disable=seccomp), a filter without SCMP_FLTATR_CTL_SSB would change this line, and
  // memory-bound candidate code would run slower than the unfiltered judge's.
  const std::string before = store_bypass_state();
  int report[2];
  REQUIRE(pipe(report) == 0);
  const Outcome outcome = in_filtered_child(with_threads(false), [&] {
    const std::string after = store_bypass_state();
    return write(report[1], after.data(), after.size()) == static_cast<ssize_t>(after.size()) ? 0 : 20;
  });
  close(report[1]);
  check_allowed(outcome);
  std::string after;
  char chunk[256];
  ssize_t got;
  while ((got = read(report[0], chunk, sizeof chunk)) > 0) after.append(chunk, static_cast<std::size_t>(got));
  close(report[0]);
  CHECK(after == before);
}
