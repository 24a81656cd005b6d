// test_release_readme.cpp: the student release's README and handouts (release/readme.h): staff blocks are cut,
// and what is left may not send students to a guide the release removes or to a staff command.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "release/readme.h"
#include "release/strip.h"

using namespace grader;

namespace {
const std::set<std::string> removed{"instructor-guide.md", "ta-guide.md", "lab-toml.md"};
}

TEST_CASE("the course README, released: no TA or instructor section, no removed guide, no selftest") {
  std::ifstream in(TESTS_DIR "/../README.md");
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  REQUIRE(text.str().find("grader selftest") != std::string::npos);  // the staff's README has them to cut
  const std::string released = student_readme(text.str(), removed);
  CHECK(released.find("## Students") != std::string::npos);
  CHECK(released.find("grader lab1") != std::string::npos);
  CHECK(released.find("## Teaching assistants") == std::string::npos);
  CHECK(released.find("## Instructors") == std::string::npos);
  CHECK(released.find("grader selftest") == std::string::npos);
  for (const auto& doc : removed) CHECK(released.find("docs/" + doc) == std::string::npos);
  CHECK(released.find("<!-- staff -->") == std::string::npos);
  // The quick start keeps the student's set-up and loses the staff's (issue 31).
  CHECK(released.find("bash grader/setup.sh --student") != std::string::npos);
  CHECK(released.find("course staff and CI") == std::string::npos);
  CHECK(released.find("ctest ") == std::string::npos);
}

TEST_CASE("the staff's set-up left unmarked stops the release at its line; the student's passes") {
  CHECK_THROWS_WITH_AS(student_readme("```sh\nbash grader/setup.sh   # course staff and CI\n```\n", removed),
                       doctest::Contains("README.md:2: the student release would tell students to run the staff's "
                                         "`bash grader/setup.sh`"),
                       ReleaseError);
  CHECK_THROWS_WITH_AS(student_readme("ctest --test-dir build -j 2\n", removed), doctest::Contains("README.md:1:"),
                       ReleaseError);
  CHECK(student_readme("bash grader/setup.sh --student\n", removed) == "bash grader/setup.sh --student\n");
}

TEST_CASE("a staff line left unmarked, or a marker left open, stops the release at its line") {
  CHECK_THROWS_WITH_AS(student_readme("# Lab\n\nRun `grader selftest lab9` first.\n", removed),
                       doctest::Contains("README.md:3: the student release would tell students to run `grader selftest`"),
                       ReleaseError);
  CHECK_THROWS_WITH_AS(student_readme("See docs/ta-guide.md.\n", removed, "labs/lab9-x/README.md"),
                       doctest::Contains("labs/lab9-x/README.md:1: the student release would point to docs/ta-guide.md"),
                       ReleaseError);
  CHECK_THROWS_WITH_AS(student_readme("a\n<!-- staff -->\nb\n", removed), doctest::Contains("README.md:2: a staff block is never closed"),
                       ReleaseError);
  CHECK(student_readme("a\n\n<!-- staff -->\nRun `grader selftest`.\n<!-- /staff -->\n\nb\n", removed) == "a\n\nb\n");
}
