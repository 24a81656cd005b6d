// test_sandbox.cpp: a worker's box (run/sandbox.h) against real children: what it writes stays in RAM, within its
// budget, and a box that cannot start is the machine's failure, not the program's. Skipped (and says why) where
// bubblewrap cannot build a box.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "run/memory_cgroup.h"
#include "run/process.h"
#include "run/sandbox.h"

namespace fs = std::filesystem;
using grader::ChildProcess;
using grader::Ending;
using grader::LaunchOptions;
using grader::ReadStatus;
using grader::Sandbox;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kMiB = 1u << 20;

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/test_sandbox.XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path_ = name;
    chmod(name, 0755);
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

LaunchOptions boxed_shell(const std::string& script, const fs::path& workdir, std::size_t written_bytes) {
  LaunchOptions options;
  options.argv = {"/bin/sh", "-c", script};
  options.workdir = workdir;
  options.environment = {{"PATH", "/usr/bin:/bin"}};
  options.limits.wall_seconds = 20;
  options.limits.cpu_seconds = 20;
  options.limits.written_bytes = written_bytes;
  options.wrapper = Sandbox::get().worker_wrapper(workdir, {}, false, written_bytes);
  return options;
}

bool no_sandbox() {
  if (Sandbox::get().available()) return false;
  MESSAGE("skipped: " << Sandbox::get().description());
  return true;
}

}  // namespace

TEST_CASE("a worker's files are in RAM, not on the disk, and gone when it ends") {
  if (no_sandbox()) return;
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(
      boxed_shell("echo hi > here; echo hi > /tmp/there; cat here /tmp/there >&4", workdir.path(), 64 * kMiB));
  std::string line;
  REQUIRE_MESSAGE(child.read_line(line, 10s) == ReadStatus::ok, child.stderr_text());
  CHECK(line == "hi");
  CHECK(child.finish().kind == Ending::Kind::exited);
  CHECK(fs::is_empty(workdir.path()));
}

// Issue 32: 40 files of 60 MiB in the work directory filled the disk; 75 in /tmp took 4.4 GiB of RAM. Each file
// here is under the file-size limit; together, in both places, they are past the budget.
TEST_CASE("files past the write budget, in the work directory and /tmp together, are a named limit") {
  if (no_sandbox()) return;
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(boxed_shell(
      "for f in a b c; do head -c 12582912 /dev/zero > $f; head -c 12582912 /dev/zero > /tmp/$f; done; echo wrote >&4; "
      "sleep 10",
      workdir.path(), 48 * kMiB));
  std::string line;
  child.read_line(line, 15s);
  CHECK_MESSAGE(child.finish().kind == Ending::Kind::written_limit, child.stderr_text());
  CHECK(fs::is_empty(workdir.path()));
}

TEST_CASE("a write past a place's own size fails there, and still counts as past the budget") {
  if (no_sandbox()) return;
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(boxed_shell(
      "head -c 100000000 /dev/zero > /tmp/big; echo \"dd $?\" >&4; sleep 10", workdir.path(), 32 * kMiB));
  std::string line;
  child.read_line(line, 15s);
  CHECK(child.finish().kind == Ending::Kind::written_limit);
}

// Issue 38: "bwrap: Can't fork", read as "exit() called inside the code?". A limit of one task leaves bwrap no room
// to start anything: the box fails before the program runs, and the ending says it was the start.
TEST_CASE("a box that cannot start its program is a start failure naming bwrap's reason") {
  if (no_sandbox()) return;
  TempDir workdir;
  LaunchOptions options = boxed_shell("echo never >&4", workdir.path(), 16 * kMiB);
  options.limits.processes = 1;
  ChildProcess child = ChildProcess::launch(options);
  std::string line;
  CHECK(child.read_line(line, 10s) == ReadStatus::closed);
  const Ending& ending = child.finish();
  CHECK(ending.kind == Ending::Kind::start_failed);
  CHECK(ending.start_failure.rfind("bwrap: ", 0) == 0);
}

TEST_CASE("a program that answered, then says bwrap's words and exits 1, is the program's exit") {
  if (no_sandbox()) return;
  TempDir workdir;
  ChildProcess child = ChildProcess::launch(
      boxed_shell("echo hello >&4; echo 'bwrap: Can'\"'\"'t fork for pid 1' >&2; exit 1", workdir.path(), 16 * kMiB));
  std::string line;
  REQUIRE(child.read_line(line, 10s) == ReadStatus::ok);
  const Ending& ending = child.finish();
  CHECK(ending.kind == Ending::Kind::exited);
  CHECK(ending.exit_code == 1);
}

TEST_CASE("the isolation line says what holds per worker") {
  const std::string text = Sandbox::get().description();
  CHECK(text.find(::geteuid() == 0 ? "its own user id" : "workers run as this user") != std::string::npos);
  std::string why;
  grader::MemoryCgroup::available(&why);
  CHECK(text.find(why) != std::string::npos);
}
