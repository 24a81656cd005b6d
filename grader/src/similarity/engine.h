// engine.h: the similarity engine, Dick Grune's similarity tester (`sim_c++`, Debian's similarity-tester), run as a
// tool and its output read. It reduces C++ (and CUDA, whose extra words are identifiers to it) to tokens with every
// identifier, number and string made equal, so renaming, layout and comments change nothing, and reports runs of
// at least `min_run` equal tokens. docs/design.md says why this engine.
//
//   sim_c++ -e -n -s -r 24 a.cu b.cu   ->  a.cu: line 12-40   |b.cu: line 30-58   [212]
//   parse_runs(...)                    ->  {a.cu, 12, 40, b.cu, 30, 58, 212}
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

inline constexpr const char* similarity_engine = "sim_c++";

// The engine is not installed: `bash grader/setup.sh` (the staff profile) installs it.
class MissingEngine : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The engine ran and failed, or printed what this reader does not understand.
class EngineError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One run of equal tokens: lines [first, last] of file `a` and of file `b` (names as given to the engine).
struct EngineRun {
  std::string a;
  int a_first = 0, a_last = 0;
  std::string b;
  int b_first = 0, b_last = 0;
  int tokens = 0;
};

// The lines of `sim_c++ -n` output that report a run; every other line (the per-file header, blank lines) is skipped.
std::vector<EngineRun> parse_runs(std::string_view output);

// `sim_c++ --` output (the token stream): for each file, the number of tokens on each line (index 0 is line 1).
std::map<std::string, std::vector<int>> parse_token_counts(std::string_view output);

// Runs the engine in `folder` on files named relative to it. Throws MissingEngine or EngineError.
class Engine {
 public:
  Engine(std::filesystem::path folder, int min_run);

  // Each file of `files` against `base` only, as one range: the runs say where each file repeats the base.
  std::vector<EngineRun> against_base(const std::vector<std::string>& files, const std::vector<std::string>& base) const;

  // Every file of `files` against every other, and against each of `old_files` (which are not compared among
  // themselves), each pair on its own (-e).
  std::vector<EngineRun> pairwise(const std::vector<std::string>& files, const std::vector<std::string>& old_files) const;

  // Tokens per line of each file.
  std::map<std::string, std::vector<int>> token_counts(const std::vector<std::string>& files) const;

 private:
  std::string run(std::vector<std::string> arguments) const;
  std::filesystem::path folder_;
  int min_run_;
};

}  // namespace grader
