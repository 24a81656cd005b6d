// cpus.h: how many CPUs this grader may use, which is not always how many the machine has. taskset, a SLURM
// task's allocation and a container's cpuset give a process some of a node's CPUs, and a cgroup's CPU quota
// (docker --cpus) only so much of their time. A grader that counted the node's CPUs would run `threads`
// OpenMP threads on the few it was given and take load on CPUs it never uses for load on its own.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

// The CPUs of this process's affinity mask (its main thread's, whatever the calling thread is pinned to), by
// number, as /proc/stat names them.
std::vector<int> affinity_cpus();

// The CPUs a cgroup v2 `cpu.max` line allows ("QUOTA PERIOD" in microseconds, rounded up, at least 1); nullopt
// for "max PERIOD" (no limit) or a line that is not one.
std::optional<int> cpus_of_quota(std::string_view cpu_max);

// The tightest CPU quota on the way from a process's cgroup v2 (the "0::PATH" line of its /proc/PID/cgroup,
// `membership`) up to the root of the cgroup2 file system mounted at `mount`: a parent's quota bounds its
// children's. In a container with its own cgroup namespace, its cgroup is the mount's root. nullopt where none
// is set, on cgroup v1 alone, or for a cgroup outside the namespace's view ("/../..").
std::optional<int> cgroup_quota_cpus(std::istream& membership, const std::string& mount);

// The CPUs this process may use: those of its affinity mask, fewer where the cgroup v2 it runs in, or one of
// that cgroup's parents, sets a lower CPU quota. At least 1. (cgroup v1 quotas are not read.)
int usable_cpus();

// The busy seconds (user, nice, system, irq, softirq and steal: time the hypervisor gave another guest is load
// too) of the CPUs named in `cpus`, from the per-CPU lines of a /proc/stat text.
double busy_seconds_of(std::istream& proc_stat, const std::vector<int>& cpus);

}  // namespace grader
