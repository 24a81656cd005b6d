#include <doctest/doctest.h>

#include <cstdio>
#include <set>
#include <string>
#include <utility>

#include "cli/exit_codes.h"

namespace {

// What `grader ARGS` prints on standard output.
std::string grader_output(const std::string& args) {
  std::string output;
  FILE* pipe = ::popen((std::string(GRADER_BINARY) + " " + args + " 2>/dev/null").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) output.append(buffer, n);
  ::pclose(pipe);
  return output;
}

// The codes listed under "Exit codes:" in a help text.
std::set<int> listed_codes(const std::string& help) {
  std::set<int> codes;
  const auto start = help.find("Exit codes:");
  if (start == std::string::npos) return codes;
  std::size_t line = help.find('\n', start);
  while (line != std::string::npos && line + 4 < help.size() && help.compare(line + 1, 2, "  ") == 0) {
    codes.insert(std::stoi(help.substr(line + 3)));
    line = help.find('\n', line + 1);
  }
  return codes;
}

std::set<int> table_codes(std::string_view command) {
  std::set<int> codes;
  for (const auto& row : grader::exit_code_table)
    if (row.command == command) codes.insert(grader::as_int(row.code));
  return codes;
}

}  // namespace

TEST_CASE("the exit code table names each command's code once") {
  std::set<std::pair<std::string, int>> seen;
  for (const auto& row : grader::exit_code_table) {
    INFO(row.command << " " << grader::as_int(row.code));
    CHECK(seen.insert({std::string(row.command), grader::as_int(row.code)}).second);
    CHECK_FALSE(row.meaning.empty());
  }
}

TEST_CASE("each command's --help lists its own exit codes, not a grading's") {
  for (const char* command : {"grade", "selftest", "batch", "new-lab", "release", "calibrate", "datasets", "list", "export", "handout",
                              "similarity"}) {
    INFO("grader " << command << " --help");
    const std::string help = grader_output(std::string(command) + " --help");
    REQUIRE(help.find("Exit codes:") != std::string::npos);
    CHECK(listed_codes(help) == table_codes(command));
  }
  // The grading's words never reach the batch's help, and the batch's own code for a refused job does.
  const std::string batch = grader_output("batch --help");
  CHECK(batch.find("graded, with failures") == std::string::npos);
  CHECK(batch.find("no CUDA GPU") == std::string::npos);
  CHECK(listed_codes(batch).count(grader::as_int(grader::ExitCode::job_refused)) == 1);
  CHECK(listed_codes(grader_output("new-lab --help")) == std::set<int>{0, 2, 4});
  CHECK(listed_codes(grader_output("release --help")) == std::set<int>{0, 1, 2, 4});
  CHECK(listed_codes(grader_output("export gradescope --help")) == table_codes("export"));
}
