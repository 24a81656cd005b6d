// exit_codes.h: what `grader` returns, in one table: each command's codes and what each means for that command.
// Each command's --help prints its own rows (cli/main.cpp); docs/student-guide.md and docs/ta-guide.md show them.
//
//   grader batch --help   ...  Exit codes:  0 every student has a report ...  6 sbatch refused the job ...
#pragma once

#include <array>
#include <string>
#include <string_view>

namespace grader {

enum class ExitCode : int {
  all_passed = 0,       // the command did its work (a grading: every correctness item passed)
  graded_failures = 1,  // graded; something failed (wrong answer, build error, crash...) or selftest found a problem
  usage = 2,            // bad command line, unknown lab, or an invalid lab.toml
  environment = 3,      // something the grader needs is missing (compiler, nvcc, sbatch)
  internal = 4,         // the grader itself failed
  not_run = 5,          // built, but not run: a GPU lab on a machine without a CUDA GPU
  job_refused = 6,      // the cluster refused the job: sbatch ran and said no (account, partition, limits)
  // Replay's codes follow main's job_refused.
  replay_refused = 7,   // replay: the lab files are not the ones the bundle was graded with
  replay_differs = 8,   // replay: graded again, and something differs beyond noise
  job_ended = 9,        // grade --slurm: the cluster ended the job before it reported (time limit, node failure, scancel)
  interrupted = 130,    // grade --slurm: Ctrl-C; the job was cancelled (the shell's own code for SIGINT)
};

struct ExitCodeInfo {
  std::string_view command;  // the subcommand ("grade" is also `grader lab1` and the top level)
  ExitCode code;
  std::string_view meaning;  // for this command
};

// One row per command and code that command can return; (command, code) never twice (tests/unit/test_exit_codes.cpp).
inline constexpr std::array exit_code_table = {
    ExitCodeInfo{"grade", ExitCode::all_passed, "graded: every test passed (performance items may still be short of full marks)"},
    ExitCodeInfo{"grade", ExitCode::graded_failures, "graded, with failures: a wrong answer, a build error, a crash, a refusal..."},
    ExitCodeInfo{"grade", ExitCode::usage, "bad usage, unknown lab, or an invalid lab.toml"},
    ExitCodeInfo{"grade", ExitCode::environment, "environment missing: no C++ compiler, or no nvcc for a CUDA lab; --slurm: "
                                                 "no cluster settings in the course, or no sbatch/scontrol/scancel here"},
    ExitCodeInfo{"grade", ExitCode::internal, "internal error in the grader (the report says so; not your fault)"},
    ExitCodeInfo{"grade", ExitCode::not_run, "built but not run: no CUDA GPU on this machine"},
    ExitCodeInfo{"grade", ExitCode::job_refused, "--slurm: sbatch refused the job (its own words follow); nothing was graded"},
    ExitCodeInfo{"grade", ExitCode::job_ended, "--slurm: the cluster ended the job before it reported (time limit, node "
                                               "failure, cancelled by someone); your files are untouched"},
    ExitCodeInfo{"grade", ExitCode::interrupted, "--slurm: you pressed Ctrl-C; the job was cancelled"},

    ExitCodeInfo{"selftest", ExitCode::all_passed, "every lab is sound here"},
    ExitCodeInfo{"selftest", ExitCode::graded_failures, "selftest found a problem (the report names it)"},
    ExitCodeInfo{"selftest", ExitCode::usage, "bad usage, unknown lab, or an invalid lab.toml"},
    ExitCodeInfo{"selftest", ExitCode::environment, "environment missing: no C++ compiler, or no nvcc for a CUDA lab"},
    ExitCodeInfo{"selftest", ExitCode::internal, "internal error in the grader"},
    ExitCodeInfo{"selftest", ExitCode::not_run, "built but not run: no CUDA GPU on this machine"},

    ExitCodeInfo{"batch", ExitCode::all_passed, "every student has a report (whatever their grades; grades.csv has them)"},
    ExitCodeInfo{"batch", ExitCode::usage, "bad usage: unknown lab or student, no submissions folder, an --out holding another "
                                           "lab, mode or seed, or another batch writing into it, --gpus on a CPU lab"},
    ExitCodeInfo{"batch", ExitCode::environment, "environment missing: no C++ compiler (the students graded so far are kept), "
                                                 "no sbatch/squeue for --slurm, or no nvidia-smi or too few GPUs for --gpus"},
    ExitCodeInfo{"batch", ExitCode::internal, "an internal error graded some student, or some student is not graded yet "
                                              "(summary.md names them; run again)"},
    ExitCodeInfo{"batch", ExitCode::job_refused, "--slurm: sbatch refused the job (its own words follow: account, partition, "
                                                 "limits); nothing was graded"},

    ExitCodeInfo{"new-lab", ExitCode::all_passed, "the lab is written and its public case generated"},
    ExitCodeInfo{"new-lab", ExitCode::usage, "bad usage: a name that is taken or not allowed"},
    ExitCodeInfo{"new-lab", ExitCode::internal, "the lab is written, but generating its public case failed (the log follows)"},

    ExitCodeInfo{"release", ExitCode::all_passed, "the student release is written"},
    ExitCodeInfo{"release", ExitCode::graded_failures, "release refused: something staff-only would have shipped (the "
                                                       "message names it); nothing usable was written"},
    ExitCodeInfo{"release", ExitCode::usage, "bad usage: unknown lab, invalid lab.toml, or an --out inside the course "
                                             "repository or not empty"},
    ExitCodeInfo{"release", ExitCode::internal, "internal error in the grader"},

    ExitCodeInfo{"handout", ExitCode::all_passed, "every handout's tables are its lab.toml's (written now, or already)"},
    ExitCodeInfo{"handout", ExitCode::graded_failures, "--check: some handout's tables differ from its lab.toml (each is "
                                                       "named; `grader handout LAB` writes them)"},
    ExitCodeInfo{"handout", ExitCode::usage, "bad usage, unknown lab, an invalid lab.toml, or a handout without its "
                                             "markers (the message names the file and line)"},

    ExitCodeInfo{"calibrate", ExitCode::all_passed, "this machine is calibrated"},
    ExitCodeInfo{"calibrate", ExitCode::usage, "bad usage"},
    ExitCodeInfo{"calibrate", ExitCode::environment, "the calibration could not run (no compiler, or it failed)"},

    ExitCodeInfo{"datasets", ExitCode::all_passed, "every dataset generated, or verified against its manifest"},
    ExitCodeInfo{"datasets", ExitCode::graded_failures, "verify: some dataset does not match its manifest"},
    ExitCodeInfo{"datasets", ExitCode::usage, "bad usage, unknown lab, or a missing manifest"},
    ExitCodeInfo{"datasets", ExitCode::environment, "environment missing: no C++ compiler, or no nvcc for a CUDA lab"},
    ExitCodeInfo{"datasets", ExitCode::internal, "the judge failed to generate a dataset"},

    ExitCodeInfo{"export", ExitCode::all_passed, "the autograder is written"},
    ExitCodeInfo{"export", ExitCode::graded_failures, "export refused: something staff-only would have shipped, or the "
                                                      "export could not be written (the message says which)"},
    ExitCodeInfo{"export", ExitCode::usage, "bad usage: unknown lab, invalid lab.toml, a GPU lab (the platforms have "
                                            "no GPUs: use grader batch, or --slurm), or an unusable --out"},

    ExitCodeInfo{"list", ExitCode::all_passed, "the labs are listed"},
    ExitCodeInfo{"list", ExitCode::usage, "bad usage, or an invalid lab.toml"},

    ExitCodeInfo{"similarity", ExitCode::all_passed, "the similarity report is written (whatever it found)"},
    ExitCodeInfo{"similarity", ExitCode::usage, "bad usage: unknown lab, a folder that is not one, a threshold outside 1-100, "
                                                "--mark-reviewed naming an unknown student, a malformed similarity-reviewed.csv"},
    ExitCodeInfo{"similarity", ExitCode::environment, "the engine sim_c++ is not installed (bash grader/setup.sh installs it)"},
    ExitCodeInfo{"similarity", ExitCode::internal, "the engine failed (its words follow)"},

    ExitCodeInfo{"replay", ExitCode::all_passed, "graded again: correctness identical, every timing within its noise"},
    ExitCodeInfo{"replay", ExitCode::usage, "bad usage: no replay bundle there, an unknown lab, or an invalid lab.toml"},
    ExitCodeInfo{"replay", ExitCode::environment, "environment missing: no C++ compiler, or no nvcc for a CUDA lab"},
    ExitCodeInfo{"replay", ExitCode::internal, "internal error in the grader"},
    ExitCodeInfo{"replay", ExitCode::replay_refused, "refused: the lab files differ from the bundle's (each one is named)"},
    ExitCodeInfo{"replay", ExitCode::replay_differs, "graded again, and something differs beyond noise (each line DIFFERS says what)"},
};

inline int as_int(ExitCode code) { return static_cast<int>(code); }

// The "Exit codes:" footer of `command`'s --help: its rows of the table, in order. Empty for a command without rows.
inline std::string exit_code_help(std::string_view command) {
  std::string text;
  for (const auto& row : exit_code_table)
    if (row.command == command) text += "  " + std::to_string(as_int(row.code)) + "  " + std::string(row.meaning) + "\n";
  return text.empty() ? text : "\nExit codes:\n" + text;
}

}  // namespace grader
