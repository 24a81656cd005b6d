// launch.h: how every worker of a lab is started: clean environment, the lab's limits.
#pragma once

#include <filesystem>
#include <vector>

#include "run/process.h"
#include "spec/lab_spec.h"

namespace grader {

// `workdir` must exist inside the executable's directory; the worker runs there, inside the sandbox where
// the machine has one, and sees only the environment given here.
// `readable` and `writable`: more folders the box shows (a profiler's own, its report's; run/sandbox.h).
LaunchOptions worker_launch_options(const LabSpec& spec, const std::filesystem::path& executable,
                                    const std::filesystem::path& workdir,
                                    const std::vector<std::filesystem::path>& readable = {},
                                    const std::vector<std::filesystem::path>& writable = {});

}  // namespace grader
