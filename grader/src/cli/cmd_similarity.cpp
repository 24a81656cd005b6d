// grader similarity LAB SUBMISSIONS --out DIR: similar submissions across a class, the starter code left out.
// docs/ta-guide.md, "Similar submissions", is the user's guide.
//
//   grader similarity lab1 subs --out grades                       grades/similarity.html, .csv, a page per pair
//   grader similarity lab1 subs --out grades --past ../2025/subs   each student also against last year's class
//   grader similarity lab1 subs --out grades --mark-reviewed alice,bob --note "explained in office hours"
#include <iostream>

#include "batch/roster.h"
#include "cli/batch_command.h"
#include "cli/common.h"
#include "cli/values.h"
#include "similarity/engine.h"
#include "similarity/report.h"
#include "similarity/reviewed.h"
#include "similarity/similarity.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

struct SimilarityCommand {
  std::string lab;
  SimilarityOptions options;
  std::string threshold_text = "50";
  std::string min_run_text = std::to_string(default_min_run);
  std::vector<std::string> mark;  // --mark-reviewed A,B
  std::string note;
};

// --mark-reviewed names two students the roster holds (in the class or, for the second, the past submissions).
void check_marked_pair(const SimilarityCommand& command) {
  if (command.mark.empty()) {
    if (!command.note.empty()) throw CommandFailure(ExitCode::usage, "--note goes with --mark-reviewed A,B");
    return;
  }
  if (command.mark.size() != 2 || command.mark[0] == command.mark[1])
    throw CommandFailure(ExitCode::usage, "--mark-reviewed takes two different students: --mark-reviewed alice,bob");
  std::vector<Submission> roster = read_roster(command.options.submissions);
  if (!command.options.past.empty())
    for (auto& entry : read_roster(command.options.past)) roster.push_back(std::move(entry));
  for (const auto& id : command.mark) {
    bool found = false;
    for (const auto& entry : roster) found = found || entry.id == id;
    if (!found) throw CommandFailure(ExitCode::usage, "--mark-reviewed: no submission '" + id + "' in " + command.options.submissions.string() +
                                                          (command.options.past.empty() ? "" : " or " + command.options.past.string()));
  }
}

void report(const SimilarityOutcome& outcome, const SimilarityOptions& options) {
  std::cout << "compared " << outcome.submissions << " submission(s)"
            << (outcome.past ? " and " + std::to_string(outcome.past) + " past one(s)" : std::string()) << ": "
            << outcome.flagged << " pair(s) at or above " << static_cast<int>(options.threshold * 100 + 0.5) << "%, "
            << outcome.pairs << " with anything in common\n"
            << "wrote " << outcome.index.string() << ", " << (options.out / similarity_csv_name).string()
            << " and a page per pair in " << (options.out / similarity_pages_folder).string() << "/\n";
  if (!outcome.not_read.empty()) {
    std::cout << outcome.not_read.size() << " submission(s) not read whole:\n";
    for (const auto& line : outcome.not_read) std::cout << "  " << line << "\n";
  }
}

SimilarityOutcome run_stage(const Environment& env, const LabSpec& spec, const SimilarityOptions& options) {
  try {
    return write_similarity_report(env, spec, options);
  } catch (const MissingEngine& missing) {
    throw CommandFailure(ExitCode::environment, missing.what());
  } catch (const EngineError& error) {
    throw CommandFailure(ExitCode::internal, std::string("the similarity engine failed: ") + error.what());
  }
}

void run_similarity_command(SimilarityCommand command) {
  const Environment env = current_environment();
  const LabSpec spec = load_lab(env, command.lab);
  SimilarityOptions& options = command.options;
  options.threshold = static_cast<double>(parse_whole_number("--threshold", command.threshold_text, 1, 100)) / 100;
  options.min_run = static_cast<int>(parse_whole_number("--min-run", command.min_run_text, 8, 1000));
  for (const auto& [option, folder] : {std::pair{"the submissions folder", options.submissions}, {"--past", options.past},
                                       {"--starter", options.starter}})
    if (!folder.empty() && !fs::is_directory(folder))
      throw CommandFailure(ExitCode::usage, std::string(option) + " " + folder.string() + " is not a folder");
  check_marked_pair(command);
  try {
    fs::create_directories(options.out);
    if (!command.mark.empty()) {
      mark_reviewed(options.out / reviewed_file_name, command.mark[0], command.mark[1], command.note);
      std::cout << "marked " << command.mark[0] << " & " << command.mark[1] << " reviewed in "
                << (options.out / reviewed_file_name).string() << "\n";
    }
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::usage, std::string("--out: ") + error.what());
  }
  SimilarityOutcome outcome;
  try {
    outcome = run_stage(env, spec, options);
  } catch (const CommandFailure&) {
    throw;
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::usage, error.what());
  }
  report(outcome, options);
}

}  // namespace

void write_batch_similarity(const Environment& env, const LabSpec& spec, const BatchCommand& command) {
  SimilarityOptions options;
  options.submissions = command.submissions;
  options.out = command.out;
  options.limits = {command.max_archive_mb << 20, command.max_archive_files};
  try {
    report(run_stage(env, spec, options), options);
  } catch (const CommandFailure&) {
    throw;
  } catch (const std::exception& error) {
    throw CommandFailure(ExitCode::usage, error.what());
  }
}

void setup_similarity(CLI::App& app) {
  auto command = std::make_shared<SimilarityCommand>();
  auto* similarity = app.add_subcommand("similarity", "similar submissions across a class, starter code left out (docs/ta-guide.md)");
  similarity->add_option("lab", command->lab, "the lab: lab1, matvec or lab1-matvec")->required();
  similarity->add_option("submissions", command->options.submissions, "the class, laid out as for grader batch: a folder, "
                         ".zip or .tar.gz per student")->required();
  similarity->add_option("--out,-o", command->options.out, "where similarity.html, similarity.csv and the pair pages go "
                         "(a batch's --out is fine); the report holds students' code")->required();
  similarity->add_option("--past", command->options.past, "earlier years' submissions, same layout: each student is "
                         "compared with them, they are not compared with each other");
  similarity->add_option("--threshold", command->threshold_text, "pairs scoring at least this percent get a page")->default_str("50");
  similarity->add_option("--starter", command->options.starter, "the starter code given to students (default: skeletons/<lab>)");
  similarity->add_option("--min-run", command->min_run_text, "the shortest run of equal tokens that counts")
      ->default_str(std::to_string(default_min_run));
  similarity->add_option("--mark-reviewed", command->mark, "record this pair as reviewed (kept by every rerun), then report")
      ->delimiter(',');
  similarity->add_option("--note", command->note, "with --mark-reviewed: the reviewer's note");
  similarity->callback([command] { run_similarity_command(*command); });
}

}  // namespace grader
