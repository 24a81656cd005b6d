// test_cpus.cpp: the CPUs the grader may use (grader/src/core/cpus.h): its affinity mask's, fewer under a cgroup
// CPU quota, and the busy time of only those CPUs in /proc/stat.
#include <doctest/doctest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/cpus.h"
#include "temp_dir.h"

using grader::affinity_cpus;
using grader::busy_seconds_of;
using grader::cgroup_quota_cpus;
using grader::cpus_of_quota;
using grader::usable_cpus;

TEST_CASE("a cgroup's cpu.max line gives whole CPUs, rounded up") {
  CHECK(cpus_of_quota("200000 100000\n") == 2);
  CHECK(cpus_of_quota("150000 100000") == 2);  // one and a half CPUs' time: two threads, each throttled a little
  CHECK(cpus_of_quota("50000 100000") == 1);
  CHECK(cpus_of_quota("1 100000") == 1);
  CHECK(cpus_of_quota("800000 50000") == 16);
}

TEST_CASE("a cpu.max line that sets no limit, or is no cpu.max line, gives none") {
  CHECK_FALSE(cpus_of_quota("max 100000\n").has_value());
  CHECK_FALSE(cpus_of_quota("").has_value());
  CHECK_FALSE(cpus_of_quota("100000").has_value());
  CHECK_FALSE(cpus_of_quota("0 100000").has_value());
  CHECK_FALSE(cpus_of_quota("-5 100000").has_value());
  CHECK_FALSE(cpus_of_quota("200000 0").has_value());
  CHECK_FALSE(cpus_of_quota("2e5 100000").has_value());
}

namespace {

// A cgroup2 tree under `mount`: each (group, cpu.max line) pair writes that group's cpu.max.
void make_cgroups(const std::filesystem::path& mount,
                  std::initializer_list<std::pair<const char*, const char*>> groups) {
  for (const auto& [group, cpu_max] : groups) {
    const auto folder = mount / group;
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "cpu.max") << cpu_max << "\n";
  }
}

std::optional<int> quota_of(const std::string& proc_cgroup, const std::filesystem::path& mount) {
  std::istringstream membership(proc_cgroup);
  return cgroup_quota_cpus(membership, mount.string());
}

}  // namespace

TEST_CASE("the tightest quota from a process's cgroup up to the root counts, a parent's included") {
  TempDir mount("test-cpus-cgroup");
  make_cgroups(mount.path(), {{"", "max 100000"}, {"slurm", "800000 100000"}, {"slurm/job7", "300000 100000"},
                              {"slurm/job7/step0", "max 100000"}, {"docker", "max 100000"}});
  CHECK(quota_of("0::/slurm/job7/step0\n", mount.path()) == 3);  // the job's quota bounds its step
  CHECK(quota_of("0::/slurm\n", mount.path()) == 8);
  CHECK_FALSE(quota_of("0::/docker\n", mount.path()).has_value());
  CHECK_FALSE(quota_of("0::/\n", mount.path()).has_value());
  // A hybrid machine lists its v1 controllers too: only the v2 line ("0::") names the group.
  CHECK(quota_of("4:memory:/elsewhere\n1:cpu:/\n0::/slurm/job7\n", mount.path()) == 3);
}

TEST_CASE("a container's own cgroup namespace shows its cgroup as the mount's root") {
  TempDir mount("test-cpus-container");
  make_cgroups(mount.path(), {{"", "200000 100000"}});
  CHECK(quota_of("0::/\n", mount.path()) == 2);
}

TEST_CASE("no quota on cgroup v1 alone, nor for a cgroup outside the namespace's view") {
  TempDir mount("test-cpus-none");
  make_cgroups(mount.path(), {{"", "100000 100000"}});
  CHECK_FALSE(quota_of("4:memory:/\n1:cpu,cpuacct:/\n", mount.path()).has_value());
  CHECK_FALSE(quota_of("0::/../../other\n", mount.path()).has_value());
  CHECK_FALSE(quota_of("", mount.path()).has_value());
}

TEST_CASE("the usable CPUs are the affinity mask's, at most") {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  REQUIRE(::sched_getaffinity(0, sizeof mask, &mask) == 0);
  const auto ours = affinity_cpus();
  CHECK(static_cast<int>(ours.size()) == CPU_COUNT(&mask));
  for (int cpu : ours) CHECK(CPU_ISSET(cpu, &mask));
  CHECK(usable_cpus() >= 1);
  CHECK(usable_cpus() <= static_cast<int>(ours.size()));
}

TEST_CASE("a process given one CPU, as taskset or a SLURM task would, counts one") {
  // In a process of its own, as taskset makes one: a thread's own mask is not the process's (a batch pins its
  // grading threads, pipeline/timing_gate.h), and affinity_cpus reads the process's.
  const auto ours = affinity_cpus();
  REQUIRE_FALSE(ours.empty());
  const int first = ours.front();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    if (::sched_setaffinity(0, sizeof one, &one) != 0) ::_exit(2);
    ::_exit(usable_cpus() == 1 && affinity_cpus() == std::vector<int>{first} ? 0 : 1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("only the named CPUs' busy time counts, the summary line never") {
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  // user nice system idle iowait irq softirq steal: idle and iowait are not busy, steal is.
  std::istringstream stat(
      "cpu  1 2 3 4 5 6 7 8 9 10\n"  // a summary whose first figure is small enough to pass for a CPU's number
      "cpu0 100 10 20 5000 40 1 2 3 0 0\n"
      "cpu1 200 0 30 6000 50 0 0 7 0 0\n"
      "cpu2 400 0 0 7000 0 0 0 0 0 0\n"
      "intr 123456 1 2 3\n"
      "ctxt 999\n");
  CHECK(busy_seconds_of(stat, {1}) == doctest::Approx((200 + 30 + 7) / ticks));
  stat.clear();
  stat.seekg(0);
  CHECK(busy_seconds_of(stat, {0, 2}) == doctest::Approx((100 + 10 + 20 + 1 + 2 + 3 + 400) / ticks));
  stat.clear();
  stat.seekg(0);
  CHECK(busy_seconds_of(stat, {5}) == 0);
}
