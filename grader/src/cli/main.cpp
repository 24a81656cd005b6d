// grader: builds a student's lab, checks it against the lab's judge, times it and scores it.
//
//   grader list                      the labs
//   grader lab1                      grade skeletons/lab1-matvec (same as `grader grade lab1`)
//   grader selftest [LAB]            prove a lab sound on this machine
//   grader calibrate                 measure this machine's roofline
//   grader datasets generate|verify  public test data
//   grader export gradescope LAB     an autograder for a course platform
//   grader replay BUNDLE             grade a replay bundle again and say what differs
//   grader similarity LAB SUBS --out DIR  similar submissions across a class, starter code left out
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/common.h"
#include "core/scratch.h"

namespace {

// `grader lab1 ...` means `grader grade lab1 ...`: the first word that is not a global option (or its
// value) and not a subcommand names a lab.
std::vector<std::string> with_default_subcommand(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::size_t first_word = 0;
  while (first_word < args.size() && args[first_word].rfind("-", 0) == 0) {
    const bool takes_value = args[first_word] == "--root";  // the one global option with a separate value
    first_word += takes_value ? 2 : 1;
  }
  if (first_word < args.size()) {
    bool is_subcommand = false;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; }))
      if (sub->get_name() == args[first_word]) is_subcommand = true;
    if (!is_subcommand) args.insert(args.begin() + static_cast<std::ptrdiff_t>(first_word), "grade");
  }
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"grader: builds, checks, times and scores performance-programming labs", "grader"};
  // `grader lab1` grades: the top level shows grade's codes. CLI11 copies a parent's footer into each subcommand, so
  // each one is given its own below, or `grader batch --help` would list a grading's codes.
  app.footer(grader::exit_code_help("grade") + "\nEach command's --help lists its own exit codes.\n");
  app.add_option("--root", grader::global_options().root, "the course repository (default: $GRADER_ROOT, else the source tree this grader was built from)");
  app.require_subcommand(1);
  app.fallthrough();  // subcommands inherit this: `grader lab1 --root R` reaches the global option
  grader::setup_list(app);
  grader::setup_grade(app);
  grader::setup_selftest(app);
  grader::setup_calibrate(app);
  grader::setup_datasets(app);
  grader::setup_batch(app);
  grader::setup_new_lab(app);
  grader::setup_release(app);
  grader::setup_export(app);
  grader::setup_replay(app);
  grader::setup_handout(app);
  grader::setup_similarity(app);
  const auto every = [](const CLI::App*) { return true; };
  for (auto* command : app.get_subcommands(every)) {
    command->footer(grader::exit_code_help(command->get_name()));
    // `grader export gradescope` answers as `grader export` does.
    for (auto* platform : command->get_subcommands(every)) platform->footer(grader::exit_code_help(command->get_name()));
  }

  // Every way out of main removes this process's work folders (core/scratch.h); a killed grader's are reaped by the next.
  struct RemoveScratch {
    ~RemoveScratch() { grader::remove_scratch(); }
  } remove_scratch;
  try {
    auto args = with_default_subcommand(app, argc, argv);
    app.parse(args);
  } catch (const CLI::Success& success) {
    return app.exit(success);  // --help: not an error
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return grader::as_int(grader::ExitCode::usage);
  } catch (const grader::CommandFailure& failure) {
    std::cerr << "grader: " << failure.what() << "\n";
    return grader::as_int(failure.code());
  } catch (const std::exception& error) {
    std::cerr << "grader: internal error: " << error.what() << "\n";
    return grader::as_int(grader::ExitCode::internal);
  }
  return grader::as_int(grader::command_result());
}
