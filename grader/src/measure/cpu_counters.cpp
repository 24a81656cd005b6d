// cpu_counters.cpp: perf events opened by the grader on a worker's threads, around one call (measure/cpu_counters.h).
// One event per thread and kind, not a group: a group cannot be read with `inherit` on the kernels CI runs, and
// `inherit` is what counts the threads an OpenMP call starts. Each event reads its own enabled and running times, so
// a count the kernel multiplexed is scaled to the whole call.
#include "measure/cpu_counters.h"

#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "run/procfs.h"

namespace grader {

namespace {

// Threads a count opens events on, at most: seven descriptors each must stay well inside the grader's open files.
constexpr std::size_t most_counted_threads = 96;

struct EventKind {
  const char* name;  // as perf(1) names it, for the report's reasons
  std::uint32_t type;
  std::uint64_t config;
  bool hardware;
  std::optional<double> CounterSet::*hardware_slot;  // where a hardware count goes; null for software ones
};

constexpr std::uint64_t cache_event(std::uint64_t cache, std::uint64_t op, std::uint64_t result) {
  return cache | (op << 8) | (result << 16);
}

const std::vector<EventKind>& event_kinds() {
  static const std::vector<EventKind> kinds = {
      {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true, &CounterSet::cycles},
      {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true, &CounterSet::instructions},
      {"LLC-load-misses", PERF_TYPE_HW_CACHE,
       cache_event(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), true,
       &CounterSet::cache_misses},
      {"L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
       cache_event(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), true,
       &CounterSet::l1d_misses},
      {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, true, &CounterSet::branch_misses},
      {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, false, nullptr},
      {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false, nullptr},
  };
  return kinds;
}

// Disabled, user space only (perf_event_paranoid 2, the common default, allows no more to an unprivileged grader),
// inherited by threads started after it opens, closed across exec: a worker started later never holds it.
int open_event(const EventKind& kind, pid_t thread) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = kind.type;
  attr.config = kind.config;
  attr.disabled = 1;
  attr.inherit = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, thread, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

std::optional<int> read_paranoid() {
  std::ifstream file("/proc/sys/kernel/perf_event_paranoid");
  int value = 0;
  if (file >> value) return value;
  return std::nullopt;
}

// Every thread of `leader` and the processes below it (the sandbox's two bubblewrap processes among them: they
// sleep through the call and count nothing).
std::vector<pid_t> threads_below(pid_t leader) {
  std::vector<pid_t> processes = {leader};
  for (const pid_t pid : procfs::descendants_of(leader)) processes.push_back(pid);
  std::vector<pid_t> threads;
  for (const pid_t pid : processes) {
    const std::string folder = "/proc/" + std::to_string(pid) + "/task";
    DIR* tasks = opendir(folder.c_str());
    if (tasks == nullptr) continue;  // gone since the scan
    while (const dirent* entry = readdir(tasks)) {
      char* end = nullptr;
      const long tid = std::strtol(entry->d_name, &end, 10);
      if (tid > 0 && *end == '\0') threads.push_back(static_cast<pid_t>(tid));
    }
    closedir(tasks);
  }
  return threads;
}

struct OpenEvent {
  std::size_t kind;
  int fd;
};

// The event's count over the call, scaled up where the kernel ran it for only part of the time it was enabled.
std::optional<double> read_count(int fd) {
  std::uint64_t values[3] = {0, 0, 0};  // value, time enabled, time running
  if (read(fd, values, sizeof values) != static_cast<ssize_t>(sizeof values)) return std::nullopt;
  if (values[2] == 0) return values[1] == 0 ? std::optional<double>(0.0) : std::nullopt;  // never scheduled on a counter
  return static_cast<double>(values[0]) * static_cast<double>(values[1]) / static_cast<double>(values[2]);
}

// "ENOENT": the error's name, which a TA can search for; its number where the C library has no name for it.
std::string perf_errno_name(int error_number) {
  const char* name = strerrorname_np(error_number);
  return name != nullptr ? name : "errno " + std::to_string(error_number);
}

}  // namespace

std::string counter_refusal(int error_number, const std::string& event, std::optional<int> paranoid) {
  const std::string call = "perf_event_open of " + event + ": ";
  const std::string level = paranoid ? std::to_string(*paranoid) : std::string("unreadable");
  switch (error_number) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
      return "no hardware performance counters here (" + call + perf_errno_name(error_number) +
             "; a virtual machine without a virtual PMU?)";
    case EACCES:
    case EPERM:
      if (!paranoid || *paranoid > 2)
        return "not permitted: /proc/sys/kernel/perf_event_paranoid is " + level +
               " (counting another process's user-space events needs 2 or less, or CAP_PERFMON; " + call +
               perf_errno_name(error_number) + ")";
      return "not permitted although perf_event_paranoid is " + level + " (" + call + perf_errno_name(error_number) +
             "): a container's seccomp profile or a security module refuses perf_event_open";
    case ENOSYS:
      return "this kernel has no perf events (" + call + "ENOSYS)";
    case ESRCH:
      return "the worker's process had gone before its counters were opened";
    case EMFILE:
    case ENFILE:
      return "the grader ran out of file descriptors opening counters (" + call + perf_errno_name(error_number) + ")";
    default:
      return call + perf_errno_name(error_number) + " (" + std::strerror(error_number) + ")";
  }
}

bool count_call(pid_t leader, const std::function<bool()>& call, CounterSet& into, std::string& why_not) {
  why_not.clear();
  std::vector<pid_t> threads = threads_below(leader);
  if (threads.size() > most_counted_threads) threads.resize(most_counted_threads);
  const auto& kinds = event_kinds();
  std::vector<OpenEvent> events;
  std::vector<bool> refused(kinds.size(), false);
  std::string hardware_refusal, software_refusal;
  for (const pid_t thread : threads) {
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      if (refused[k]) continue;
      const int fd = open_event(kinds[k], thread);
      if (fd >= 0) {
        events.push_back({k, fd});
        continue;
      }
      const int error_number = errno;
      if (error_number == ESRCH) break;  // the thread ended: its work is no part of the call
      // A kind refused once is refused for every thread: the machine or the kernel's rules, not the thread.
      refused[k] = true;
      std::string& reason = kinds[k].hardware ? hardware_refusal : software_refusal;
      // The cache and branch events are missing on some CPUs that count cycles: only the first refusal of a kind
      // the others came through is worth naming, and cycles' reason stands for all the hardware ones.
      if (reason.empty()) reason = counter_refusal(error_number, kinds[k].name, read_paranoid());
    }
  }

  for (const auto& event : events) ioctl(event.fd, PERF_EVENT_IOC_ENABLE, 0);
  const bool answered = call();
  for (const auto& event : events) ioctl(event.fd, PERF_EVENT_IOC_DISABLE, 0);

  std::vector<std::optional<double>> sums(kinds.size());
  int ran = 0;  // threads with CPU time in the call (a thread it started counts with the thread that started it)
  for (const auto& event : events) {
    const std::optional<double> count = read_count(event.fd);
    close(event.fd);
    if (!count) continue;
    sums[event.kind] = sums[event.kind].value_or(0) + *count;
    if (kinds[event.kind].config == PERF_COUNT_SW_TASK_CLOCK && kinds[event.kind].type == PERF_TYPE_SOFTWARE && *count > 0)
      ++ran;
  }
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    if (!sums[k]) continue;
    if (kinds[k].hardware_slot != nullptr) into.*kinds[k].hardware_slot = sums[k];
    else if (kinds[k].config == PERF_COUNT_SW_TASK_CLOCK) into.cpu_seconds = *sums[k] * 1e-9;
    else into.page_faults = *sums[k];
  }
  // The bubblewrap processes around the worker sleep through the call: only threads that ran are the call's.
  into.threads = events.empty() ? 0 : std::max(ran, 1);
  const bool cycles_refused = refused[0];
  if (events.empty()) why_not = !software_refusal.empty() ? software_refusal : hardware_refusal;
  else if (cycles_refused) why_not = hardware_refusal;
  if (events.empty() && why_not.empty()) why_not = "the worker's process had no threads to count";
  return answered;
}

}  // namespace grader
