// grader release --out DIR [--labs lab1,lab2]: writes the student repository (release/release.h says what ships):
// no reference/, no hidden cases or benchmarks, no withheld datasets, no build artefacts, and proves it by a
// scan for leaks before it says it is done.
#include <algorithm>
#include <cstdio>

#include "cli/common.h"
#include "release/release.h"
#include "release/uncommitted.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

struct ReleaseCommand {
  fs::path out;
  std::vector<std::string> labs;
  bool allow_uncommitted = false;
};

void run_release(const ReleaseCommand& command) {
  const Environment env = current_environment();
  // The usage mistakes first, so they are exit code 2 and not a failed release.
  const fs::path out = fs::weakly_canonical(fs::absolute(command.out));
  const fs::path root = fs::weakly_canonical(env.root);
  const fs::path relative = out.lexically_relative(root);
  if (out == root || (!relative.empty() && *relative.begin() != ".."))
    throw CommandFailure(ExitCode::usage, "--out " + out.string() + " is inside the course repository; write the release elsewhere");
  if (fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out)))
    throw CommandFailure(ExitCode::usage, "--out " + out.string() + " exists and is not an empty directory");
  std::string warning;
  const std::string refusal = uncommitted_refusal(root, "release", command.allow_uncommitted, warning);
  if (!refusal.empty()) throw CommandFailure(ExitCode::graded_failures, refusal);  // "refused: something would have shipped"
  if (!warning.empty()) std::fprintf(stderr, "grader: warning: %s\n", warning.c_str());
  std::vector<LabSpec> labs;
  if (command.labs.empty()) {
    labs = load_labs(env, std::nullopt);
  } else {
    for (const auto& name : command.labs) {
      LabSpec spec = load_lab(env, name);
      const bool twice = std::any_of(labs.begin(), labs.end(), [&](const LabSpec& s) { return s.name() == spec.name(); });
      if (!twice) labs.push_back(std::move(spec));
    }
  }

  ReleaseSummary summary;
  try {
    summary = write_release(env, labs, out);
  } catch (const ReleaseError& error) {
    throw CommandFailure(ExitCode::graded_failures, std::string("release: ") + error.what());
  }
  std::printf("student release in %s: %zu lab(s), %zu files\n", out.string().c_str(), summary.labs.size(), summary.files);
  for (const auto& lab : summary.labs)
    std::printf("  %-22s %d hidden case(s) and %d hidden item(s) left out, %d dataset(s) withheld\n", lab.name.c_str(),
                lab.hidden_cases, lab.hidden_items, lab.datasets_withheld);
  std::printf("left behind:\n");
  for (const auto& line : summary.left_out) std::printf("  %s\n", line.c_str());
  std::printf("checked: no file of reference/, no line only a solution has, no hidden case, item or dataset name, no "
              "withheld seed; every lab.toml valid, every dataset verified\n");
}

}  // namespace

void setup_release(CLI::App& app) {
  auto command = std::make_shared<ReleaseCommand>();
  auto* release = app.add_subcommand("release", "write the student repository: no reference/, no hidden cases");
  release->add_option("--out,-o", command->out, "the directory to write (new, or empty; outside this repository)")->required();
  release->add_option("--labs", command->labs, "only these labs, comma-separated (default: all)")->delimiter(',');
  release->add_flag("--allow-uncommitted", command->allow_uncommitted,
                    "ship skeletons/, labs/ and reference/ as they are on disk, changes not committed to git included");
  release->callback([command] { run_release(*command); });
}

}  // namespace grader
