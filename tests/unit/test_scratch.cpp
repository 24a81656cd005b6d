// test_scratch.cpp: the work folders of concurrent graders (core/scratch.h). A folder is locked before the reaper
// can see it, so no grader starting beside another can delete the other's folder, whatever the interleaving.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/scratch.h"

namespace fs = std::filesystem;
using grader::reap_stale_scratch;
using grader::remove_scratch;
using grader::scratch_root;

namespace {

class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/test_scratch.XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path_ = name;
    ::chmod(name, 0755);  // a root grader's work folders must be reachable by its workers' users
  }
  ~TempDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

int lock(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  return fd;
}

}  // namespace

TEST_CASE("a folder is live while its directory is locked, dead once not; a young unborn one is left") {
  TempDir parent;
  fs::create_directories(parent.path() / "12-live");
  fs::create_directories(parent.path() / "12-dead");
  fs::create_directories(parent.path() / "13-kept");
  std::ofstream(parent.path() / "13-kept" / ".keep") << "kept\n";
  fs::create_directories(parent.path() / ".new-young");  // being made by a grader this very moment
  fs::create_directories(parent.path() / ".new-old");    // left by a grader killed while making it
  fs::last_write_time(parent.path() / ".new-old", fs::file_time_type::clock::now() - std::chrono::hours(1));
  fs::create_directories(parent.path() / "unrelated");
  const int held = lock(parent.path() / "12-live");
  // The pid in a name counts for nothing: 12-dead's may be a live process's (in another pid namespace).
  reap_stale_scratch(parent.path());
  CHECK(fs::exists(parent.path() / "12-live"));
  CHECK_FALSE(fs::exists(parent.path() / "12-dead"));
  CHECK(fs::exists(parent.path() / "13-kept"));
  CHECK(fs::exists(parent.path() / ".new-young"));
  CHECK_FALSE(fs::exists(parent.path() / ".new-old"));
  CHECK(fs::exists(parent.path() / "unrelated"));
  ::close(held);
  reap_stale_scratch(parent.path());
  CHECK_FALSE(fs::exists(parent.path() / "12-live"));
}

// Each child is a grader starting: it makes its folder (reaping the others' dead ones as it does) and checks that
// the folder is still there while the others start. Before the fix, a reaper could take the lock of a folder whose
// process had made it but not yet locked it, and delete it.
TEST_CASE("many graders starting at once never delete each other's folders") {
  TempDir base;
  ::setenv("TMPDIR", base.path().c_str(), 1);
  constexpr int kGraders = 48;
  constexpr int kRounds = 3;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<pid_t> graders;
    std::fflush(nullptr);  // nothing buffered here is written again by each child
    for (int n = 0; n < kGraders; ++n) {
      const pid_t pid = ::fork();
      REQUIRE(pid >= 0);
      if (pid == 0) {
        int failed = 0;
        try {
          const fs::path mine = scratch_root();
          for (int look = 0; look < 20 && !failed; ++look) {
            if (!fs::is_directory(mine) || fs::temp_directory_path() != mine) failed = 1;
            std::ofstream(mine / "probe") << look;  // as a grading would write its files
            ::usleep(2000);
          }
          remove_scratch();
        } catch (...) {
          failed = 2;
        }
        ::_exit(failed);
      }
      graders.push_back(pid);
    }
    int failures = 0;
    for (const pid_t pid : graders) {
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
    }
    CHECK_MESSAGE(failures == 0, failures << " of " << kGraders << " graders lost their work folder in round " << round);
  }
  // Every grader removed its own folder: nothing is left behind, and nothing live was ever reaped.
  const fs::path parent = base.path() / ("grader-" + std::to_string(::geteuid()));
  int left = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(parent)) ++left;
  CHECK(left == 0);
}
