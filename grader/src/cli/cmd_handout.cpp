// grader handout [LAB] [--check]: writes the "What is graded" tables of each lab's handout (labs/<lab>/README.md)
// from its lab.toml (handout/graded_table.h), between the handout's markers; the prose around them is kept.
// --check writes nothing and exits 1 naming every handout whose tables differ from its lab.toml.
//
// A command of its own rather than a mode of `new-lab` or `selftest`: the tables follow every edit of a lab.toml,
// long after new-lab, and are a pure function of it, so they are rewritten in a moment without building or running
// anything (selftest builds and times the reference).
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/common.h"
#include "core/atomic_file.h"
#include "handout/graded_table.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

struct HandoutCommand {
  std::optional<std::string> lab;
  bool check = false;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CommandFailure(ExitCode::usage, path.string() + ": cannot be read (every lab has its handout there)");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void run_handout(const HandoutCommand& command) {
  const Environment env = current_environment();
  int differing = 0;
  for (const LabSpec& spec : load_labs(env, command.lab)) {
    const fs::path path = spec.dir / "README.md";
    const std::string shown = fs::relative(path, env.root).string();
    const std::string handout = read_text(path);
    std::string regenerated;
    try {
      regenerated = with_graded_tables(handout, spec, shown);
    } catch (const HandoutError& error) {
      throw CommandFailure(ExitCode::usage, error.what());
    }
    if (regenerated == handout) {
      std::cout << shown << ": up to date\n";
      continue;
    }
    ++differing;
    if (command.check) {
      std::cout << shown << ": the tables differ from " << fs::relative(spec.file, env.root).string()
                << "; `grader handout " << spec.id << "` writes them\n";
    } else {
      write_file_atomically(path, regenerated);
      std::cout << shown << ": tables written from lab.toml\n";
    }
  }
  if (command.check && differing > 0) command_result() = ExitCode::graded_failures;
}

}  // namespace

void setup_handout(CLI::App& app) {
  auto command = std::make_shared<HandoutCommand>();
  auto* handout = app.add_subcommand("handout", "write the handouts' \"What is graded\" tables from lab.toml");
  handout->add_option("lab", command->lab, "one lab (default: every lab)");
  handout->add_flag("--check", command->check, "write nothing; exit 1 if a handout's tables differ from its lab.toml");
  handout->callback([command] { run_handout(*command); });
}

}  // namespace grader
