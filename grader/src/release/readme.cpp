#include "release/readme.h"

#include <sstream>
#include <vector>

#include "release/strip.h"

namespace grader {

namespace {

constexpr std::string_view staff_begin = "<!-- staff -->";
constexpr std::string_view staff_end = "<!-- /staff -->";

// Commands only the staff run (the instructor's and the TA's).
const std::vector<std::string>& staff_commands() {
  static const std::vector<std::string> commands{"grader selftest", "grader batch", "grader new-lab", "grader release"};
  return commands;
}

// The staff's set-up: `bash grader/setup.sh` without --student installs the test suite's needs, and `ctest` runs
// that suite; a student's copy runs neither (a release README once kept "bash grader/setup.sh  # course staff").
std::string staff_setup(const std::string& line) {
  if (line.find("bash grader/setup.sh") != std::string::npos && line.find("--student") == std::string::npos)
    return "bash grader/setup.sh";
  if (line.find("ctest ") != std::string::npos) return "ctest";
  return "";
}

std::string trimmed(const std::string& line) {
  const auto first = line.find_first_not_of(" \t");
  const auto last = line.find_last_not_of(" \t\r");
  return first == std::string::npos ? "" : line.substr(first, last - first + 1);
}

}  // namespace

std::string student_readme(std::string_view readme, const std::set<std::string>& removed_docs, const std::string& file) {
  std::istringstream lines{std::string(readme)};
  std::string line, out;
  int number = 0, opened_at = 0;
  bool in_staff = false, last_blank = false;
  while (std::getline(lines, line)) {
    ++number;
    const std::string bare = trimmed(line);
    if (bare == staff_begin) {
      if (in_staff) throw ReleaseError(file + ":" + std::to_string(number) + ": a staff block opens inside another");
      in_staff = true;
      opened_at = number;
      continue;
    }
    if (bare == staff_end) {
      if (!in_staff) throw ReleaseError(file + ":" + std::to_string(number) + ": " + std::string(staff_end) + " closes nothing");
      in_staff = false;
      continue;
    }
    if (in_staff) continue;
    auto refuse = [&](const std::string& what) {
      throw ReleaseError(file + ":" + std::to_string(number) + ": the student release would " + what +
                         "; mark the staff's text with " + std::string(staff_begin) + " ... " + std::string(staff_end));
    };
    for (const auto& doc : removed_docs)
      if (line.find("docs/" + doc) != std::string::npos) refuse("point to docs/" + doc + ", which it leaves out");
    for (const auto& command : staff_commands())
      if (line.find(command) != std::string::npos) refuse("tell students to run `" + command + "`");
    if (const std::string setup = staff_setup(line); !setup.empty())
      refuse("tell students to run the staff's `" + setup + "` (a student's is `bash grader/setup.sh --student`)");
    // Two blank lines where a block was cut become one.
    const bool blank = bare.empty();
    if (blank && last_blank) continue;
    last_blank = blank;
    out += line + "\n";
  }
  if (in_staff) throw ReleaseError(file + ":" + std::to_string(opened_at) + ": a staff block is never closed");
  return out;
}

}  // namespace grader
