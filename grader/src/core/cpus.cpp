#include "core/cpus.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

namespace grader {

std::vector<int> affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> ours;
  // The process's mask, as its main thread holds it: a batch pins a grading thread to its timing slot or to the
  // CPUs for work beside it (pipeline/timing_gate.h), and `threads`, the machine's id and its calibration must
  // not change with that.
  if (::sched_getaffinity(::getpid(), sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) ours.push_back(cpu);
  return ours;
}

std::optional<int> cpus_of_quota(std::string_view cpu_max) {
  const auto space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view quota_text = cpu_max.substr(0, space);
  std::string_view period_text = cpu_max.substr(space + 1);
  while (!period_text.empty() && (period_text.back() == '\n' || period_text.back() == ' '))
    period_text.remove_suffix(1);
  long long quota = 0, period = 0;
  const auto parse = [](std::string_view text, long long& value) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() && value > 0;
  };
  if (!parse(quota_text, quota) || !parse(period_text, period)) return std::nullopt;  // "max": no limit
  return static_cast<int>(std::max(1LL, (quota + period - 1) / period));
}

std::optional<int> cgroup_quota_cpus(std::istream& membership, const std::string& mount) {
  std::string line, path;
  while (std::getline(membership, line))
    if (line.rfind("0::", 0) == 0) path = line.substr(3);
  // None on cgroup v1 alone, and none for a cgroup outside this namespace's view ("/../..").
  if (path.empty() || path.front() != '/' || path.find("/..") != std::string::npos) return std::nullopt;
  std::string group = mount + (path == "/" ? "" : path);
  std::optional<int> tightest;
  for (;;) {
    std::ifstream cpu_max(group + "/cpu.max");
    if (std::string text; std::getline(cpu_max, text))
      if (const auto cpus = cpus_of_quota(text)) tightest = std::min(tightest.value_or(*cpus), *cpus);
    if (group.size() <= mount.size()) break;
    group.erase(group.rfind('/'));
  }
  return tightest;
}

int usable_cpus() {
  int cpus = static_cast<int>(affinity_cpus().size());
  if (cpus == 0) cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::ifstream membership("/proc/self/cgroup");
  if (const auto quota = cgroup_quota_cpus(membership, "/sys/fs/cgroup")) cpus = std::min(cpus, *quota);
  return std::max(1, cpus);
}

double busy_seconds_of(std::istream& proc_stat, const std::vector<int>& cpus) {
  static const double ticks = static_cast<double>(std::max(1L, ::sysconf(_SC_CLK_TCK)));
  double busy = 0;
  for (std::string line; std::getline(proc_stat, line);) {
    // The summary line "cpu  ..." names no CPU (%d would skip its spaces and read its first figure for one).
    if (line.rfind("cpu", 0) != 0 || line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3]))) continue;
    int cpu = -1;
    double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
    if (std::sscanf(line.c_str(), "cpu%d %lf %lf %lf %lf %lf %lf %lf %lf", &cpu, &user, &nice, &system, &idle, &iowait,
                    &irq, &softirq, &steal) < 8)
      continue;
    if (std::find(cpus.begin(), cpus.end(), cpu) != cpus.end()) busy += user + nice + system + irq + softirq + steal;
  }
  return busy / ticks;
}

}  // namespace grader
