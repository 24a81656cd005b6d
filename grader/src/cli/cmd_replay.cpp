// grader replay BUNDLE [--submission DIR]: grades a replay bundle's submission again, with the seed and options it
// was graded with, and prints what differs (bundle/replay_diff.h). Refuses, with exit code 7, when the lab's files
// are not the ones the bundle was graded with: a replay must regrade the same lab, or it proves nothing.
#include <iostream>

#include "bundle/bundle.h"
#include "bundle/replay_diff.h"
#include "build/build.h"
#include "cli/common.h"
#include "pipeline/grade.h"
#include "report/writers.h"

namespace grader {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct ReplayCommand {
  fs::path bundle;
  std::optional<fs::path> submission;
  bool verbose = false;
};

std::map<std::string, std::string> as_hashes(const json& object) {
  std::map<std::string, std::string> hashes;
  for (const auto& [name, hash] : object.items())
    if (hash.is_string()) hashes[name] = hash.get<std::string>();
  return hashes;
}

// Differences that do not change the verdict but explain a timing: another compiler, another machine.
std::vector<std::string> setting_notes(const json& bundle, const Environment& env, const json& replay_report) {
  std::vector<std::string> notes;
  const json& toolchain = bundle.value("toolchain", json::object());
  if (toolchain.value("cxx", "") != env.cxx) notes.push_back("the C++ compiler is " + env.cxx + ", the bundle's was " + toolchain.value("cxx", "?"));
  const json& machine = bundle.value("machine", json::object());
  if (machine.value("cpu", "") != replay_report["machine"].value("cpu", "") ||
      machine.value("threads", 0) != replay_report["machine"].value("threads", 0))
    notes.push_back("this machine (" + replay_report["machine"].value("cpu", std::string("?")) + ") is not the bundle's (" +
                    machine.value("cpu", std::string("?")) + "): timings are compared all the same, read them with care");
  return notes;
}

void run_replay(const ReplayCommand& command) {
  json bundle;
  try {
    bundle = read_bundle(command.bundle);
  } catch (const BundleError& error) {
    throw CommandFailure(ExitCode::usage, error.what());
  }
  const Environment env = current_environment();
  const LabSpec spec = load_lab(env, bundle["lab"].get<std::string>());

  const std::vector<std::string> changed = changed_files(as_hashes(bundle["lab_files"]), lab_file_hashes(env, spec));
  if (!changed.empty()) {
    std::string list;
    for (const auto& file : changed) list += "\n  " + file;
    throw CommandFailure(ExitCode::replay_refused, "refusing to replay " + command.bundle.string() + ": these lab files under " +
                                                       env.root.string() + " differ from the ones it was graded with:" + list);
  }

  GradeOptions options;
  options.submission = command.submission.value_or(command.bundle / "submission");
  if (!fs::is_directory(options.submission))
    throw CommandFailure(ExitCode::usage, "the submission " + options.submission.string() + " is not a directory");
  options.seed = bundle["seed"].get<std::uint64_t>();
  const json& settings = bundle["options"];
  options.quick = settings.value("quick", false);
  options.include_hidden = settings.value("hidden", false);
  options.sanitize = settings.value("sanitize", "");
  // A replay compares points and figures, which counters never change: no profiled calls.
  options.counters = false;
  if (stderr_is_terminal()) options.progress = [](const std::string& line) { std::cerr << "\r\033[K" << line << std::flush; };

  std::cout << "replaying " << spec.name() << " with seed " << options.seed << (options.quick ? " (--quick)" : "")
            << (options.include_hidden ? " (--hidden)" : "") << ": " << options.submission.string() << "\n";
  std::cout << "lab files: all " << bundle["lab_files"].size() << " match the bundle's\n";
  std::vector<std::string> differences;
  if (command.submission) {
    for (const auto& file : changed_files(as_hashes(bundle["staged_files"]), folder_hashes(options.submission)))
      // Only the files the lab stages count: the rest of a folder is never read.
      for (const auto& name : spec.build.student_files)
        if (file.rfind(name + " (", 0) == 0) differences.push_back("submitted file " + file);
  }

  Report report;
  try {
    report = grade_submission(env, spec, options);
  } catch (const MissingToolchain& missing) {
    throw CommandFailure(ExitCode::environment, missing.what());
  }
  if (options.progress) std::cerr << "\r\033[K" << std::flush;
  const json now = to_json(report);
  for (const auto& note : setting_notes(bundle, env, now)) std::cout << "note: " << note << "\n";

  const ReplayDiff diff = compare_reports(bundle["report"], now);
  differences.insert(differences.end(), diff.differences.begin(), diff.differences.end());
  if (command.verbose)
    for (const auto& line : diff.same) std::cout << "same: " << line << "\n";
  for (const auto& line : differences) std::cout << "DIFFERS: " << line << "\n";
  std::cout << "score: " << bundle["report"].value("score", 0.0) << "/" << bundle["report"].value("max_score", 0.0)
            << " then, " << report.score << "/" << report.max_score << " now\n";
  std::cout << (differences.empty() ? "no differences: correctness identical, every timing within its noise\n"
                                    : std::to_string(differences.size()) + " difference(s)\n");
  command_result() = differences.empty() ? ExitCode::all_passed : ExitCode::replay_differs;
}

}  // namespace

void setup_replay(CLI::App& app) {
  auto command = std::make_shared<ReplayCommand>();
  auto* replay = app.add_subcommand("replay", "grade a replay bundle again (same seed, options) and print what differs");
  replay->add_option("bundle", command->bundle, "the bundle folder (from --bundle, or <out>/<id>.bundle of a batch)")->required();
  replay->add_option("--submission,-s", command->submission, "grade this folder instead of the bundle's copy of the submission");
  replay->add_flag("--verbose,-v", command->verbose, "also list every item that matched, with both intervals");
  replay->callback([command] { run_replay(*command); });
}

}  // namespace grader
