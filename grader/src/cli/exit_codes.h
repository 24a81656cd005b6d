// exit_codes.h: what `grader` returns, in one table that --help and docs/student-guide.md print.
#pragma once

#include <array>
#include <string_view>

namespace grader {

enum class ExitCode : int {
  all_passed = 0,       // graded; every correctness item passed and nothing failed
  graded_failures = 1,  // graded; something failed (wrong answer, build error, crash...) or selftest found a problem
  usage = 2,            // bad command line, unknown lab, or an invalid lab.toml
  environment = 3,      // something the grader needs is missing (compiler, nvcc)
  internal = 4,         // the grader itself failed
  not_run = 5,          // built, but not run: a GPU lab on a machine without a CUDA GPU
};

struct ExitCodeInfo {
  ExitCode code;
  std::string_view meaning;
};

inline constexpr std::array exit_code_table = {
    ExitCodeInfo{ExitCode::all_passed, "graded: every test passed (performance items may still be short of full marks)"},
    ExitCodeInfo{ExitCode::graded_failures, "graded, with failures (or selftest found a problem)"},
    ExitCodeInfo{ExitCode::usage, "bad usage, unknown lab, or an invalid lab.toml"},
    ExitCodeInfo{ExitCode::environment, "environment missing: no C++ compiler, or no nvcc for a CUDA lab"},
    ExitCodeInfo{ExitCode::internal, "internal error in the grader"},
    ExitCodeInfo{ExitCode::not_run, "built but not run: no CUDA GPU on this machine"},
};

inline int as_int(ExitCode code) { return static_cast<int>(code); }

}  // namespace grader
