// tool.h: runs a trusted tool (the compiler, nm, readelf, nvidia-smi) and collects what it printed.
// Untrusted programs never go through here: they run as a ChildProcess (run/process.h) under limits.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace grader {

struct ToolResult {
  int exit_code = -1;        // -1 when it could not be started or was killed
  bool timed_out = false;
  std::string output;        // stdout and stderr interleaved, capped
  bool ok() const { return exit_code == 0 && !timed_out; }
};

struct ToolOptions {
  double timeout_seconds = 120;
  std::size_t output_cap = 1 << 20;
  // A tool that reads a student's files (the compiler, the linker) runs, when the grader is root, as the build
  // user (run/unprivileged.h), who can open only what every user may.
  bool as_build_user = false;
  // The tool's whole environment ("NAME=value"); empty: the grader's own.
  std::vector<std::string> environment;
};

// Runs argv (argv[0] looked up on PATH when it has no '/') in `cwd`, at most `timeout_seconds`, keeping
// the first `output_cap` bytes of its output. The tool inherits no descriptor of the grader's but its output.
ToolResult run_tool(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                    double timeout_seconds = 120, std::size_t output_cap = 1 << 20);
ToolResult run_tool(const std::vector<std::string>& argv, const std::filesystem::path& cwd, const ToolOptions& options);

// The command line as a shell would show it, for logs.
std::string quote_command(const std::vector<std::string>& argv);

}  // namespace grader
