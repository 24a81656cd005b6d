// common.h: what every subcommand shares: the environment, finding a lab by name, failing with a code.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include "catalog/catalog.h"
#include "cli/exit_codes.h"
#include "core/environment.h"
#include "spec/lab_spec.h"

namespace grader {

// Thrown by a subcommand to end the program with a message and an exit code; main prints it once.
class CommandFailure : public std::runtime_error {
 public:
  CommandFailure(ExitCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

struct GlobalOptions {
  std::optional<std::filesystem::path> root;
};
GlobalOptions& global_options();
Environment current_environment();

// The lab called `name` ("lab1", "matvec", "lab1-matvec"), its lab.toml validated. Unknown names and
// invalid specs are CommandFailure(usage) naming the labs that exist or the file:line:column.
LabSpec load_lab(const Environment& env, const std::string& name);

// Every lab, or just `name` when given.
std::vector<LabSpec> load_labs(const Environment& env, const std::optional<std::string>& name);

// The exit code a subcommand that ran to its end chose (graded with failures, not run...).
ExitCode& command_result();

bool stderr_is_terminal();
bool stdout_wants_colour();

// Subcommands: each file defines its setup function.
void setup_list(CLI::App& app);
void setup_grade(CLI::App& app);
void setup_selftest(CLI::App& app);
void setup_calibrate(CLI::App& app);
void setup_datasets(CLI::App& app);
void setup_batch(CLI::App& app);
void setup_new_lab(CLI::App& app);
void setup_release(CLI::App& app);
void setup_export(CLI::App& app);
void setup_replay(CLI::App& app);
void setup_handout(CLI::App& app);
void setup_similarity(CLI::App& app);

}  // namespace grader
