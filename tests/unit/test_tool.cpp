// test_tool.cpp: running a tool (grader/src/core/tool.h) the way a student's compile and link are run: as the build
// user when the grader is root (run/unprivileged.h), with only the environment given, and no descriptor of the
// grader's; and can_read_as(), which tells whether that user can open a file.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/tool.h"
#include "run/unprivileged.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using grader::build_user;
using grader::can_read_as;
using grader::run_tool;
using grader::ToolOptions;

namespace {

ToolOptions as_build_user() {
  ToolOptions options;
  options.timeout_seconds = 20;
  options.as_build_user = true;
  options.environment = {"PATH=/usr/bin:/bin", "ONLY=this"};
  return options;
}

// A folder every user may enter, as a grading's work folder is.
fs::path open_folder(const TempDir& dir) {
  fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec |
                                  fs::perms::group_read | fs::perms::others_read);
  return dir.path();
}

}  // namespace

TEST_CASE("a student's build tool runs as the build user when the grader is root, else as the grader") {
  TempDir dir("test-tool");
  const auto result = run_tool({"id", "-u"}, open_folder(dir), as_build_user());
  REQUIRE(result.ok());
  CHECK(result.output == std::to_string(geteuid() == 0 ? build_user.uid : geteuid()) + "\n");
  // A tool of the grader's own stays the grader's user.
  CHECK(run_tool({"id", "-u"}, dir.path()).output == std::to_string(geteuid()) + "\n");
}

TEST_CASE("a student's build tool sees only the environment it was given") {
  TempDir dir("test-tool");
  ::setenv("GRADER_TEST_SECRET", "should not be seen", 1);
  const auto result = run_tool({"env"}, open_folder(dir), as_build_user());
  ::unsetenv("GRADER_TEST_SECRET");
  REQUIRE(result.ok());
  CHECK(result.output == "PATH=/usr/bin:/bin\nONLY=this\n");
}

TEST_CASE("no tool inherits a descriptor the grader holds open (a lab file opened without O_CLOEXEC)") {
  TempDir dir("test-tool");
  const fs::path secret = dir.path() / "lab.toml";
  std::ofstream(secret) << "hidden\n";
  const int held = ::open(secret.c_str(), O_RDONLY);  // no O_CLOEXEC, as an ifstream opens
  REQUIRE(held > 2);
  // ls holds one descriptor besides 0-2: the folder it lists, numbered 3 when 0-2 are the only others.
  const auto result = run_tool({"ls", "/proc/self/fd"}, dir.path());
  ::close(held);
  REQUIRE(result.ok());
  CHECK(result.output == "0\n1\n2\n3\n");
}

TEST_CASE("can_read_as: the build user opens what every user may, not a file kept from others") {
  TempDir dir("test-tool");
  const fs::path folder = open_folder(dir);
  const fs::path shared = folder / "matvec.h", kept = folder / "lab.toml";
  std::ofstream(shared) << "public\n";
  std::ofstream(kept) << "hidden\n";
  fs::permissions(shared, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(kept, fs::perms::owner_read | fs::perms::owner_write);
  CHECK(can_read_as(build_user, shared));
  if (geteuid() != 0) {
    // Not root: no other user to become; the tools run as the grader, who can read its own file.
    CHECK(can_read_as(build_user, kept));
    return;
  }
  CHECK_FALSE(can_read_as(build_user, kept));
  // And the tool itself, as the build user, is refused it.
  const auto result = run_tool({"cat", kept.string()}, folder, as_build_user());
  CHECK_FALSE(result.ok());
  CHECK(result.output.find("Permission denied") != std::string::npos);
}

TEST_CASE("as the build user, a tool cannot read the grader's environment or its open files through /proc") {
  if (geteuid() != 0) {
    MESSAGE("not checked: not root, so the tools run as the grader's own user; there is no other user to keep out");
    return;
  }
  TempDir dir("test-tool");
  const fs::path kept = dir.path() / "lab.toml";
  std::ofstream(kept) << "hidden\n";
  fs::permissions(kept, fs::perms::owner_read | fs::perms::owner_write);
  const int held = ::open(kept.c_str(), O_RDONLY);
  REQUIRE(held > 2);
  const std::string grader_proc = "/proc/" + std::to_string(::getpid());
  for (const std::string& path : {grader_proc + "/environ", grader_proc + "/fd/" + std::to_string(held), grader_proc + "/mem"}) {
    CAPTURE(path);
    const auto result = run_tool({"head", "-c", "64", path}, open_folder(dir), as_build_user());
    CHECK_FALSE(result.ok());
    CHECK(result.output.find("hidden") == std::string::npos);
  }
  ::close(held);
}
