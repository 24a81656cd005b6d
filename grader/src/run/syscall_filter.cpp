// syscall_filter.cpp: the candidate's seccomp filter, built with libseccomp.
//
// A deny list, not an allow list: the CUDA driver and runtime make ioctls, mmaps, eventfds, pipes, futexes and
// threads that no one can list for every driver version, while what a submission must never do is short.
// Refused calls trap (SIGSYS) rather than fail with EPERM: a refused fork that returned -1 would let the code
// carry on and hide the attempt; a trap ends it with a verdict that names the call.
//
// Choices that are not obvious:
//   - clone3 fails with ENOSYS instead of trapping: its flags sit in memory, which seccomp cannot read, and
//     glibc's pthread_create falls back to clone on ENOSYS, whose flags are a register the filter can test.
//   - signals may go only to the process itself (kill, tgkill, rt_[tg]sigqueueinfo with its own pid): raise(),
//     abort() and pthread_kill() keep working, kill(-1), kill(<the grader>) do not.
//   - installing a SIGSYS handler is refused once the reporter is in place, so a submission cannot swallow the
//     trap; blocking SIGSYS does not help either (the kernel unblocks a forced SIGSYS, or kills).
//   - a foreign ABI (int 0x80's i386 calls, x32) traps as a whole: the rules are written for the native one.
//   - TSYNC: every thread a library started before main gets the filter too.
#include "run/syscall_filter.h"

#include <fcntl.h>
#include <sched.h>
#include <linux/netlink.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>

#ifdef GRADER_HAVE_SECCOMP
#include <seccomp.h>
#endif

namespace grader {
namespace {

// Refused whatever their arguments.
constexpr const char* kAlwaysRefused[] = {
    // new processes and programs (clone without CLONE_THREAD is below)
    "fork", "vfork", "execve", "execveat",
    // other processes: debugging, reading or writing their memory, their file descriptors, their signals
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "tkill",
    // leaving the process group the grader kills (or joining the grader's)
    "setsid", "setpgid",
    // namespaces and mounts
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount",
    "fsconfig", "fspick", "mount_setattr",
    // measuring or changing the machine under the other side's feet, and asynchronous kernels of work
    "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd", "bpf",
};
// Refused by their arguments (see install_syscall_filter).
constexpr const char* kConditionallyRefused[] = {"clone", "kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
                                                 "rt_sigaction", "socket"};

}  // namespace

std::vector<std::string_view> filtered_syscalls() {
  std::vector<std::string_view> names(std::begin(kAlwaysRefused), std::end(kAlwaysRefused));
  names.insert(names.end(), std::begin(kConditionallyRefused), std::end(kConditionallyRefused));
  names.push_back("clone3");
  return names;
}

#ifndef GRADER_HAVE_SECCOMP

bool syscall_filter_built() { return false; }
int install_syscall_filter(const SyscallFilterOptions&) { return -ENOSYS; }

#else

namespace {

// What the SIGSYS reporter needs, prepared before the filter is loaded: a signal handler may not allocate.
struct NamedCall {
  int number;
  char name[24];
};
NamedCall g_named[64];  // every call of the two lists above, and clone3
static_assert(std::size(kAlwaysRefused) + std::size(kConditionallyRefused) + 1 <= std::size(g_named));
std::size_t g_named_count = 0;
unsigned g_native_arch = 0;

std::size_t append(char* out, std::size_t at, std::size_t capacity, const char* text) {
  while (*text != '\0' && at + 1 < capacity) out[at++] = *text++;
  return at;
}

std::size_t append_number(char* out, std::size_t at, std::size_t capacity, long value) {
  char digits[24];
  int count = 0;
  unsigned long magnitude = value < 0 ? 0ul - static_cast<unsigned long>(value) : static_cast<unsigned long>(value);
  do digits[count++] = static_cast<char>('0' + magnitude % 10);
  while ((magnitude /= 10) != 0 && count < 23);
  if (value < 0) digits[count++] = '-';
  while (count > 0 && at + 1 < capacity) out[at++] = digits[--count];
  return at;
}

// Async-signal-safe: names the call on stderr, then dies of SIGSYS (SA_RESETHAND made the action the default
// one, SA_NODEFER lets the second SIGSYS through at once), so the grader sees the signal and the words.
void report_forbidden_call(int, siginfo_t* info, void* context) {
  char line[160];
  std::size_t at = append(line, 0, sizeof line, "\n");
  at = append(line, at, sizeof line, kForbiddenSyscallMarker.data());
  const char* name = nullptr;
  if (static_cast<unsigned>(info->si_arch) == g_native_arch)
    for (std::size_t i = 0; i < g_named_count; ++i)
      if (g_named[i].number == info->si_syscall) name = g_named[i].name;
  if (name != nullptr) {
    at = append(line, at, sizeof line, name);
#if defined(__x86_64__)
    // Which socket: the filter lets some families through (AF_UNIX in CUDA labs), so the family tells which.
    if (std::strcmp(name, "socket") == 0 && context != nullptr) {
      at = append(line, at, sizeof line, " of family ");
      at = append_number(line, at, sizeof line,
                         static_cast<long>(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RDI]));
    }
#endif
  } else {
    at = append(line, at, sizeof line, "number ");
    at = append_number(line, at, sizeof line, info->si_syscall);
    if (static_cast<unsigned>(info->si_arch) != g_native_arch) at = append(line, at, sizeof line, " of a foreign ABI");
  }
  at = append(line, at, sizeof line, " (refused by the grader's syscall filter)\n");
  [[maybe_unused]] const ssize_t ignored = write(STDERR_FILENO, line, at);
  syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGSYS);
  _exit(128 + SIGSYS);  // not reached: the default action of SIGSYS ends the process
}

class Context {
 public:
  Context() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {}
  ~Context() {
    if (ctx_ != nullptr) seccomp_release(ctx_);
  }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  scmp_filter_ctx get() const { return ctx_; }

 private:
  scmp_filter_ctx ctx_;
};

// Adds `rule` for `name` when this architecture has that call (fork and vfork do not exist on arm64).
template <class... Comparisons>
int add(scmp_filter_ctx ctx, uint32_t action, const char* name, Comparisons... comparisons) {
  const int number = seccomp_syscall_resolve_name(name);
  if (number == __NR_SCMP_ERROR) return 0;
  if (number >= 0 && g_named_count < sizeof g_named / sizeof *g_named) {
    NamedCall& named = g_named[g_named_count++];
    named.number = number;
    std::strncpy(named.name, name, sizeof named.name - 1);
    named.name[sizeof named.name - 1] = '\0';
  }
  return seccomp_rule_add(ctx, action, number, sizeof...(comparisons), comparisons...);
}

}  // namespace

bool syscall_filter_built() { return true; }

int install_syscall_filter(const SyscallFilterOptions& options) {
  const auto self = static_cast<scmp_datum_t>(options.self != 0 ? options.self : getpid());
  Context context;
  scmp_filter_ctx ctx = context.get();
  if (ctx == nullptr) return -ENOMEM;
  g_named_count = 0;
  g_native_arch = seccomp_arch_native();
  const uint32_t refuse = SCMP_ACT_TRAP;
  int error = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_TRAP);
  if (error == 0) error = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
  // A binary search over call numbers rather than a list (libseccomp 2.5): every allowed call, the CUDA
  // runtime's ioctls and the OpenMP barriers' futexes, pays a few comparisons, not one per rule. Older
  // libseccomp lacks the attribute; the list then works the same, a little slower.
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
  if (error == 0) seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  // Kernels before 5.16 (and any booted with spec_store_bypass_disable=seccomp) turn on the speculative store
  // bypass mitigation in every filtered process, which slows memory-bound code: the candidate would then run
  // slower than the judge it is compared with. The mitigation guards a process's secrets from code inside it,
  // and a candidate has none to guard from itself.
  if (error == 0) seccomp_attr_set(ctx, SCMP_FLTATR_CTL_SSB, 1);
#endif
  for (const char* name : kAlwaysRefused)
    if (error == 0) error = add(ctx, refuse, name);
  if (error != 0) return error;

  // A new process is a clone without CLONE_THREAD; a thread is one with it, refused unless the lab has threads.
  if (options.threads) {
    error = add(ctx, refuse, "clone", SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  } else {
    error = add(ctx, refuse, "clone");
    // Its one thread stays on the CPUs the grader gave it: a batch may time a classmate on the next CPU, or run
    // this program beside that timing, only because neither can move (batch/timing_plan.h). EPERM, as a cpuset
    // answers, rather than death: asking is no attack.
    if (error == 0) error = add(ctx, SCMP_ACT_ERRNO(EPERM), "sched_setaffinity");
  }
  if (error == 0) error = add(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3");
  // Signals only to itself. The comparison is on all 64 bits: a pid with junk in the upper half is refused.
  for (const char* name : {"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"})
    if (error == 0) error = add(ctx, refuse, name, SCMP_A0(SCMP_CMP_NE, self));
  // The SIGSYS reporter stays: installing another handler for SIGSYS is refused (asking for the current one is not).
  if (error == 0) error = add(ctx, refuse, "rt_sigaction", SCMP_A0(SCMP_CMP_EQ, SIGSYS), SCMP_A1(SCMP_CMP_NE, 0));
  if (error == 0 && options.unix_sockets && options.loopback_sockets) {
    // Every family but AF_UNIX (1), AF_INET (2), AF_INET6 (10) and AF_NETLINK (16) for routes only (the C
    // library's view of the interfaces, which in the namespace is its loopback alone, read-only to an
    // unprivileged user): one rule per gap, as libseccomp compares an argument once per rule. The comparison is
    // on all 64 bits: junk in the upper half is above AF_NETLINK.
    error = add(ctx, refuse, "socket", SCMP_A0(SCMP_CMP_EQ, AF_UNSPEC));
    for (int family = AF_INET + 1; family < AF_NETLINK && error == 0; ++family)
      if (family != AF_INET6) error = add(ctx, refuse, "socket", SCMP_A0(SCMP_CMP_EQ, static_cast<scmp_datum_t>(family)));
    if (error == 0)
      error = add(ctx, refuse, "socket", SCMP_A0(SCMP_CMP_EQ, AF_NETLINK), SCMP_A2(SCMP_CMP_NE, NETLINK_ROUTE));
    if (error == 0) error = add(ctx, refuse, "socket", SCMP_A0(SCMP_CMP_GT, AF_NETLINK));
  } else if (error == 0) {
    error = options.unix_sockets ? add(ctx, refuse, "socket", SCMP_A0(SCMP_CMP_NE, AF_UNIX)) : add(ctx, refuse, "socket");
  }
  if (error != 0) return error;

  struct sigaction reporter = {};
  reporter.sa_sigaction = report_forbidden_call;
  reporter.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESETHAND;
  sigemptyset(&reporter.sa_mask);
  if (sigaction(SIGSYS, &reporter, nullptr) != 0) return -errno;
  return seccomp_load(ctx);
}

#endif

}  // namespace grader
