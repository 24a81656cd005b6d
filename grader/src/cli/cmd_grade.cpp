// grader grade LAB (or just `grader LAB`): grades one submission and prints the report.
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>

#include "build/build.h"
#include "bundle/bundle.h"
#include "cli/common.h"
#include "cli/grade_slurm.h"
#include "cli/values.h"
#include "core/atomic_file.h"
#include "core/scratch.h"
#include "pipeline/dump_case.h"
#include "pipeline/grade.h"
#include "report/html_report.h"
#include "report/reference_points.h"
#include "report/writers.h"

namespace grader {

namespace {

struct GradeCommand {
  std::string lab;
  std::optional<std::filesystem::path> submission;
  std::string format = "text";
  std::optional<std::filesystem::path> output;
  bool quick = false;
  bool no_counters = false;  // no counted call (counters are on for a student's grading): GradeOptions::counters
  bool hidden = false;
  bool keep = false;
  std::optional<std::string> seed;  // read whole by parse_whole_number: CLI11 wrapped "-1" to 2^64-1
  std::string sanitize;  // "auto" when given bare: compute-sanitizer's memcheck on a CUDA lab, address,undefined on a CPU lab
  std::optional<std::string> only;
  std::optional<std::string> dump_case;
  std::optional<std::filesystem::path> bundle;
  bool slurm = false;  // grade on a node of the course's cluster (cli/grade_slurm.h)
  std::optional<std::string> submission_label;  // the name the report gives the submission (--slurm's node)
};

// --sanitize with or without a value, checked against the kind of lab.
std::string sanitizer_for(const LabSpec& spec, const std::string& asked) {
  if (asked.empty()) return "";
  if (asked == "auto") return spec.gpu ? "memcheck" : "address,undefined";
  const bool compiler = is_compiler_sanitizer(asked);
  if (spec.gpu && compiler)
    throw CommandFailure(ExitCode::usage, "--sanitize=" + asked + " is for CPU labs; " + spec.id +
                                              " is a CUDA lab: use --sanitize (memcheck) or --sanitize=racecheck");
  if (!spec.gpu && !compiler)
    throw CommandFailure(ExitCode::usage, "--sanitize=" + asked + " runs compute-sanitizer, for CUDA labs; " + spec.id +
                                              " is a CPU lab: use --sanitize (address,undefined), --sanitize=address or --sanitize=undefined");
  return asked;
}

void check_only(const LabSpec& spec, const std::string& only) {
  std::string items;
  for (const auto& item : spec.correctness) {
    if (item.name == only) return;
    items += "\n  " + item.name;
  }
  for (const auto& item : spec.performance) {
    if (item.name == only) return;
    items += "\n  " + item.name;
  }
  throw CommandFailure(ExitCode::usage, "--only: " + spec.id + " has no item '" + only + "'; its items are:" + items);
}

// --dump-case: the case's arrays into ./<lab>-case-<name>/, then a list of the files.
void run_dump_case(const Environment& env, const LabSpec& spec, const GradeCommand& command, std::uint64_t seed) {
  std::string folder = spec.id + "-case-";
  for (char c : *command.dump_case) folder += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  try {
    const DumpedCase dumped = dump_case(env, spec, *command.dump_case, seed, command.hidden, folder);
    std::cout << dumped.item << " / " << dumped.name << " (seed " << seed << "): ";
    std::cout << dumped.files.size() << " file(s); load them with numpy.load\n";
    for (const auto& file : dumped.files) std::cout << "  " << file.string() << "\n";
  } catch (const UnknownCase& unknown) {
    throw CommandFailure(ExitCode::usage, std::string("--dump-case: ") + unknown.what());
  } catch (const MissingToolchain& missing) {
    throw CommandFailure(ExitCode::environment, missing.what());
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::internal, std::string("--dump-case: ") + error.what());
  }
}

// -o FILE: its folder exists and can be written, and FILE is not a folder. Once, a missing folder or a folder given
// as FILE exited 0 and wrote nothing.
void check_output_file(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  if (fs::is_directory(file, ec))
    throw CommandFailure(ExitCode::usage, "--output " + file.string() + " is a folder; give a file name, like " +
                                              (file / "report.json").string());
  if (!fs::is_directory(folder, ec))
    throw CommandFailure(ExitCode::usage, "--output " + file.string() + ": the folder " + folder.string() + " does not exist");
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw CommandFailure(ExitCode::usage, "--output " + file.string() + ": cannot write into " + folder.string() + ": " +
                                              std::strerror(errno));
}

ExitCode exit_code_for(const Report& report) {
  if (report.verdict == Verdict::internal_error) return ExitCode::internal;
  for (const auto& test : report.tests)
    if (test.verdict == Verdict::internal_error) return ExitCode::internal;
  if (report.verdict == Verdict::not_run) return ExitCode::not_run;
  return report.all_passed() ? ExitCode::all_passed : ExitCode::graded_failures;
}

void run_grade(const GradeCommand& command) {
  const Environment env = current_environment();
  const LabSpec spec = load_lab(env, command.lab);
  GradeOptions options;
  options.submission = command.submission.value_or(env.root / "skeletons" / spec.name());
  if (!std::filesystem::is_directory(options.submission))
    throw CommandFailure(ExitCode::usage, "the submission " + options.submission.string() + " is not a directory");
  // Else every file in it would be reported as missing: the student's verdict for the grader's lack of access.
  if (::access(options.submission.c_str(), R_OK | X_OK) != 0)
    throw CommandFailure(ExitCode::usage, "the submission " + options.submission.string() + " cannot be read: " + std::strerror(errno));
  options.seed = command.seed ? parse_whole_number("--seed", *command.seed, 0, UINT64_MAX) : fresh_seed();
  // Checked before grading, so a mistyped -o does not cost a whole grading and then write nothing.
  if (command.output) check_output_file(*command.output);
  std::optional<BundleWriter> bundle;
  try {
    if (command.bundle) bundle.emplace(*command.bundle);
  } catch (const BundleError& error) {
    throw CommandFailure(ExitCode::usage, "--bundle: " + std::string(error.what()));
  }
  if (bundle) options.keep_staged_in = bundle->staged_copy();
  if (command.keep) keep_scratch();
  options.quick = command.quick;
  options.counters = !command.no_counters;
  options.include_hidden = command.hidden;
  options.keep_workdir = command.keep;
  options.sanitize = sanitizer_for(spec, command.sanitize);
  if (command.only) {
    check_only(spec, *command.only);
    options.only = *command.only;
  }
  if (command.slurm) {
    if (command.bundle || command.keep || command.dump_case)
      throw CommandFailure(ExitCode::usage, "--bundle, --keep-workdir and --dump-case work here, not on a node: drop --slurm");
    const std::optional<ExitCode> code = grade_on_slurm(env, spec, {options.submission, command.format, command.output, command.quick,
                                                                    command.hidden, command.seed, options.sanitize, command.only,
                                                                    command.no_counters});
    if (code) return void(command_result() = *code);
  }
  if (command.dump_case) return run_dump_case(env, spec, command, options.seed);
  if (stderr_is_terminal()) {
    options.progress = [](const std::string& line) { std::cerr << "\r\033[K" << line << std::flush; };
  }

  Report report;
  try {
    report = grade_submission(env, spec, options);
  } catch (const MissingToolchain& missing) {
    throw CommandFailure(ExitCode::environment, missing.what());
  } catch (const std::exception& error) {
    // Even a grader failure leaves a report behind, so a batch or Gradescope run records the student.
    report = internal_error_report(spec.id, options.submission.string(), error.what());
    report.max_score = spec.max_score();
  }
  if (options.progress) std::cerr << "\r\033[K" << std::flush;
  if (command.submission_label) report.submission = *command.submission_label;
  if (bundle) {
    try {
      bundle->finish(env, spec, options, report);
    } catch (const std::exception& error) {
      // The grading stands; the report says the evidence for it could not be kept.
      report.warnings.push_back("no replay bundle was written: " + std::string(error.what()));
    }
  }

  std::string rendered;
  if (command.format == "json") {
    rendered = json_text(to_json(report));
  } else if (command.format == "gradescope") {
    rendered = json_text(to_gradescope(report));
  } else if (command.format == "prairielearn") {
    rendered = json_text(to_prairielearn(report));
  } else if (command.format == "html") {
    rendered = render_html_report(to_json(report), load_reference_points(env, spec.name()));
  } else {
    rendered = render_text(report, !command.output && stdout_wants_colour());
  }
  if (command.output) {
    try {
      write_file_atomically(*command.output, rendered);
    } catch (const std::exception& error) {
      throw CommandFailure(ExitCode::internal, "cannot write the report: " + std::string(error.what()));
    }
  } else {
    std::cout << rendered << std::flush;
    if (!std::cout) throw CommandFailure(ExitCode::internal, "cannot write the report to standard output");
  }
  command_result() = exit_code_for(report);
}

}  // namespace

void setup_grade(CLI::App& app) {
  auto command = std::make_shared<GradeCommand>();
  auto* grade = app.add_subcommand("grade", "grade a submission (`grader lab1` is short for `grader grade lab1`)");
  grade->add_option("lab", command->lab, "the lab: lab1, matvec or lab1-matvec")->required();
  grade->add_option("--submission,-s", command->submission, "the directory to grade (default: skeletons/<lab>)");
  grade->add_option("--format,-f", command->format, "text, json, gradescope, prairielearn or html (one self-contained page)")
      ->check(CLI::IsMember({"text", "json", "gradescope", "prairielearn", "html"}));
  grade->add_option("--output,-o", command->output, "write the report to this file instead of stdout");
  grade->add_flag("--quick,-q", command->quick, "correctness only: no timing");
  grade->add_flag("--no-counters", command->no_counters,
                  "skip the one extra call per timed item that the grader counts (CPU labs) or ncu profiles (CUDA labs): "
                  "faster, no counters");
  grade->add_option("--seed", command->seed, "replay a run: the seed its report printed");
  grade->add_flag("--hidden", command->hidden, "also run hidden cases and items (staff)");
  grade->add_option("--bundle", command->bundle, "also write a replay bundle into this folder (`grader replay` grades it again)");
  grade->add_flag("--keep-workdir", command->keep, "keep the work directory (for debugging the grader)");
  grade->add_option("--sanitize", command->sanitize,
                    "correctness only, under a memory checker: CUDA labs compute-sanitizer (memcheck, or racecheck); "
                    "CPU labs AddressSanitizer and UBSan (address,undefined, or address, or undefined)")
      ->expected(0, 1)
      ->default_str("auto")
      ->check(CLI::IsMember({"auto", "memcheck", "racecheck", "address", "undefined", "address,undefined"}));
  grade->add_option("--only", command->only, "grade one item (and the correctness items a timed one needs)");
  grade->add_option("--dump-case", command->dump_case,
                    "write one case's inputs and expected outputs as .npy files (CASE, or ITEM/CASE; with --seed, "
                    "the inputs a report's run used)");
  grade->add_flag("--slurm", command->slurm, "grade on a node of the course's cluster (course.toml [slurm]): for a GPU lab "
                                            "without a GPU here");
  grade->add_option("--submission-label", command->submission_label, "the name the report gives the submission")->group("");
  grade->callback([command] { run_grade(*command); });
}

}  // namespace grader
