#include "release/uncommitted.h"

#include <cstdio>
#include <sstream>

namespace grader {

namespace {

// `text` as one argument of a POSIX shell command line.
std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The command's standard output, or std::nullopt when it cannot be run or exits with an error.
std::optional<std::string> output_of(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string output;
  char buffer[4096];
  while (const std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, got);
  if (::pclose(pipe) != 0) return std::nullopt;
  return output;
}

}  // namespace

const std::vector<std::string>& packaged_course_folders() {
  static const std::vector<std::string> folders{"skeletons", "labs", "reference"};
  return folders;
}

std::optional<std::vector<std::string>> uncommitted_course_files(const std::filesystem::path& root) {
  const std::string git = "git -C " + shell_quoted(root.string());
  // The course need not be the checkout's top: git answers for the folders named, relative to `root`.
  if (!output_of(git + " rev-parse --is-inside-work-tree >/dev/null 2>&1")) return std::nullopt;
  std::string command = git + " status --porcelain --untracked-files=all --";
  for (const std::string& folder : packaged_course_folders()) command += " " + shell_quoted(folder);
  const std::optional<std::string> output = output_of(command + " 2>/dev/null");
  if (!output) return std::nullopt;
  std::vector<std::string> files;
  std::istringstream lines(*output);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) files.push_back(line);
  return files;
}

std::string uncommitted_refusal(const std::filesystem::path& root, const std::string& command, bool allow,
                                std::string& warning) {
  const std::optional<std::vector<std::string>> files = uncommitted_course_files(root);
  if (!files || files->empty()) return "";
  constexpr std::size_t shown = 10;
  std::string list;
  for (std::size_t i = 0; i < files->size() && i < shown; ++i) list += "\n  " + (*files)[i];
  if (files->size() > shown) list += "\n  ... and " + std::to_string(files->size() - shown) + " more";
  const std::string count = std::to_string(files->size()) + " uncommitted file(s) under skeletons/, labs/ or reference/";
  if (allow) {
    warning = command + " packages " + count + " as they are on disk (--allow-uncommitted):" + list;
    return "";
  }
  return "the course has " + count + ", which the " + command + " would ship as they are on disk:" + list +
         "\ncommit or undo them (git status), or pass --allow-uncommitted to package them anyway";
}

}  // namespace grader
