// grader export gradescope|prairielearn LAB --out ...: a CPU lab as an autograder for a course platform
// (export/export.h says what is written; docs/ta-guide.md how to use it).
//
//   grader export gradescope lab1 --out autograder.zip
//   grader export prairielearn lab1 --out pl-lab1 --image myuser/course-grader-lab1
#include <cstdio>

#include "cli/common.h"
#include "cli/values.h"
#include "export/export.h"
#include "release/uncommitted.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

struct ExportCommand {
  std::string lab;
  fs::path out;
  std::string timeout_text = "600";
  std::string image;
  bool allow_uncommitted = false;
};

enum class Platform { gradescope, prairielearn };

void print_summary(const ExportSummary& summary, const fs::path& out) {
  if (summary.bytes > 0)
    std::printf("wrote %s: %zu files, %.1f MiB\n", out.string().c_str(), summary.files, static_cast<double>(summary.bytes) / (1 << 20));
  else
    std::printf("wrote %s: %zu files\n", out.string().c_str(), summary.files);
  std::printf("checked: no file or line of reference/\nnext:\n");
  for (const auto& step : summary.steps) std::printf("  - %s\n", step.c_str());
}

void run_export(const ExportCommand& command, Platform platform) {
  const Environment env = current_environment();
  const LabSpec spec = load_lab(env, command.lab);
  std::string warning;
  const std::string refusal = uncommitted_refusal(env.root, "export", command.allow_uncommitted, warning);
  if (!refusal.empty()) throw CommandFailure(ExitCode::graded_failures, refusal);  // "refused: something would have shipped"
  if (!warning.empty()) std::fprintf(stderr, "grader: warning: %s\n", warning.c_str());
  ExportOptions options;
  // PrairieLearn kills a grading job after at most 600 s; Gradescope lets the instructor choose longer.
  const std::uint64_t longest = platform == Platform::prairielearn ? 600 : 3600;
  options.timeout_seconds = static_cast<int>(parse_whole_number("--timeout", command.timeout_text, 60, longest));
  options.image = command.image.empty() ? "course-grader/" + spec.name() : command.image;
  const fs::path out = fs::weakly_canonical(fs::absolute(command.out));
  try {
    refuse_gpu_lab(spec);
    if (platform == Platform::gradescope) {
      if (fs::is_directory(out)) throw CommandFailure(ExitCode::usage, "--out " + out.string() + " is a folder; give the zip's name, like " + (out / "autograder.zip").string());
      if (!fs::is_directory(out.parent_path())) throw CommandFailure(ExitCode::usage, "--out " + out.string() + ": the folder " + out.parent_path().string() + " does not exist");
      print_summary(export_gradescope(env, spec, options, out), out);
    } else {
      if (fs::exists(out) && !(fs::is_directory(out) && fs::is_empty(out)))
        throw CommandFailure(ExitCode::usage, "--out " + out.string() + " exists and is not an empty folder");
      print_summary(export_prairielearn(env, spec, options, out), out);
    }
  } catch (const ExportError& error) {
    throw CommandFailure(spec.gpu ? ExitCode::usage : ExitCode::graded_failures, std::string("export: ") + error.what());
  }
}

void add_platform(CLI::App& parent, const std::string& name, const std::string& help, Platform platform) {
  auto command = std::make_shared<ExportCommand>();
  auto* sub = parent.add_subcommand(name, help);
  sub->add_option("lab", command->lab, "the lab: lab1, matvec or lab1-matvec")->required();
  if (platform == Platform::gradescope) {
    sub->add_option("--out,-o", command->out, "the zip to write (autograder.zip)")->required();
    sub->add_option("--timeout", command->timeout_text, "seconds one grading may take (60 to 3600); set Gradescope's timeout to it")
        ->default_str("600");
  } else {
    sub->add_option("--out,-o", command->out, "the folder to write (new, or empty)")->required();
    sub->add_option("--timeout", command->timeout_text, "seconds one grading may take (60 to 600, PrairieLearn's most)")
        ->default_str("600");
    sub->add_option("--image", command->image, "the Docker image info.json names (default: course-grader/<lab>)");
  }
  sub->add_flag("--allow-uncommitted", command->allow_uncommitted,
                "package skeletons/, labs/ and reference/ as they are on disk, changes not committed to git included");
  sub->callback([command, platform] { run_export(*command, platform); });
}

}  // namespace

void setup_export(CLI::App& app) {
  auto* export_command = app.add_subcommand("export", "a CPU lab as a Gradescope or PrairieLearn autograder (docs/ta-guide.md)");
  export_command->require_subcommand(1);
  add_platform(*export_command, "gradescope", "write autograder.zip for Gradescope", Platform::gradescope);
  add_platform(*export_command, "prairielearn", "write a PrairieLearn external-grader question and its image", Platform::prairielearn);
}

}  // namespace grader
