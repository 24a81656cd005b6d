// test_release_uncommitted.cpp: `grader release` and `grader export` refuse to package skeletons/, labs/ or
// reference/ while they differ from the course's last commit (release/uncommitted.h): a walk's autograder.zip once
// shipped a lab1 skeleton an instructor had solved to try it (issue 31).
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "release/uncommitted.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

// A course folder that is its own git checkout, with one committed file in each packaged folder and in docs/.
class GitCourse {
 public:
  GitCourse() {
    std::string pattern = (fs::temp_directory_path() / "test_release_uncommitted-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    root_ = pattern;
    for (const char* file : {"skeletons/lab1-matvec/matvec.cpp", "labs/lab1-matvec/lab.toml",
                             "reference/lab1-matvec/matvec.cpp", "docs/guide.md"}) {
      fs::create_directories((root_ / file).parent_path());
      std::ofstream(root_ / file) << "committed\n";
    }
    ok_ = git("init -q") && git("add -A") &&
          git("-c user.name=t -c user.email=t@example.org -c commit.gpgsign=false commit -q -m start");
  }
  ~GitCourse() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  bool ok() const { return ok_; }
  const fs::path& root() const { return root_; }
  void write(const std::string& file, const std::string& text) const {
    fs::create_directories((root_ / file).parent_path());
    std::ofstream(root_ / file) << text;
  }

 private:
  bool git(const std::string& args) const {
    return std::system(("git -C '" + root_.string() + "' " + args + " >/dev/null 2>&1").c_str()) == 0;
  }
  fs::path root_;
  bool ok_ = false;
};

}  // namespace

TEST_CASE("a clean checkout is packaged without a word; a change under skeletons/ is refused, naming the file") {
  GitCourse course;
  REQUIRE_MESSAGE(course.ok(), "git could not make a test repository (is git installed?)");
  std::string warning;
  CHECK(uncommitted_refusal(course.root(), "release", false, warning).empty());
  CHECK(warning.empty());

  course.write("skeletons/lab1-matvec/matvec.cpp", "solved\n");
  const std::string refusal = uncommitted_refusal(course.root(), "export", false, warning);
  CHECK(refusal.find("1 uncommitted file(s)") != std::string::npos);
  CHECK(refusal.find("skeletons/lab1-matvec/matvec.cpp") != std::string::npos);
  CHECK(refusal.find("--allow-uncommitted") != std::string::npos);
  CHECK(warning.empty());

  // --allow-uncommitted: the command goes on, and says what it ships.
  CHECK(uncommitted_refusal(course.root(), "export", true, warning).empty());
  CHECK(warning.find("skeletons/lab1-matvec/matvec.cpp") != std::string::npos);
}

TEST_CASE("new files under labs/ and reference/ count; changes elsewhere in the course do not") {
  GitCourse course;
  REQUIRE(course.ok());
  course.write("docs/guide.md", "edited\n");
  course.write("notes.txt", "scratch\n");
  REQUIRE(uncommitted_course_files(course.root()));
  CHECK(uncommitted_course_files(course.root())->empty());

  course.write("labs/lab1-matvec/extra.h", "new\n");
  fs::remove(course.root() / "reference/lab1-matvec/matvec.cpp");
  const auto files = uncommitted_course_files(course.root());
  REQUIRE(files);
  REQUIRE(files->size() == 2);
  CHECK(((*files)[0].find("labs/lab1-matvec/extra.h") != std::string::npos ||
         (*files)[1].find("labs/lab1-matvec/extra.h") != std::string::npos));
  CHECK(((*files)[0].find("reference/lab1-matvec/matvec.cpp") != std::string::npos ||
         (*files)[1].find("reference/lab1-matvec/matvec.cpp") != std::string::npos));
}

TEST_CASE("a course that is no git checkout cannot be told: nothing is refused") {
  // /tmp itself: a TMPDIR inside the build tree would lie inside the course's own checkout.
  std::string pattern = "/tmp/test_release_uncommitted-plain-XXXXXX";
  REQUIRE(mkdtemp(pattern.data()) != nullptr);
  const fs::path plain = pattern;
  fs::create_directories(plain / "skeletons");
  std::ofstream(plain / "skeletons" / "x.cpp") << "x\n";
  CHECK_FALSE(uncommitted_course_files(plain));
  std::string warning;
  CHECK(uncommitted_refusal(plain, "release", false, warning).empty());
  fs::remove_all(plain);
}
