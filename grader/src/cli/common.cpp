#include "cli/common.h"

#include "core/scratch.h"
#include "spec/spec_checks.h"

#include <unistd.h>

#include <cstdlib>

namespace grader {

GlobalOptions& global_options() {
  static GlobalOptions options;
  return options;
}

Environment current_environment() {
  Environment env = discover_environment(global_options().root);
  // A mistyped --root once listed no labs and exited 0; a course repository always has labs/.
  std::error_code ec;
  if (!std::filesystem::is_directory(env.root / "labs", ec))
    throw CommandFailure(ExitCode::usage, "the course repository " + env.root.string() +
                                              " has no labs/ folder; check --root (or GRADER_ROOT)");
  try {
    scratch_root();  // before anything asks for a temporary folder: see core/scratch.h
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::environment, error.what());
  }
  return env;
}

LabSpec load_lab(const Environment& env, const std::string& name) {
  Catalog catalog(env.labs_dir());
  const CatalogEntry* entry = catalog.find(name);
  if (entry == nullptr)
    throw CommandFailure(ExitCode::usage, "no lab called '" + name + "'; the labs are: " + catalog.known_names());
  try {
    LabSpec spec = load_lab_spec(entry->dir);
    check_spec_datasets(spec, env.root);
    return spec;
  } catch (const SpecError& error) {
    throw CommandFailure(ExitCode::usage, std::string("invalid lab spec: ") + error.what());
  }
}

std::vector<LabSpec> load_labs(const Environment& env, const std::optional<std::string>& name) {
  if (name) return {load_lab(env, *name)};
  std::vector<LabSpec> labs;
  const Catalog catalog(env.labs_dir());  // named: the loop must not outlive it
  for (const auto& entry : catalog.entries()) labs.push_back(load_lab(env, entry.id));
  return labs;
}

ExitCode& command_result() {
  static ExitCode code = ExitCode::all_passed;
  return code;
}

bool stderr_is_terminal() { return ::isatty(2) == 1; }

bool stdout_wants_colour() { return ::isatty(1) == 1 && std::getenv("NO_COLOR") == nullptr; }

}  // namespace grader
