// test_release_leaks.cpp: the scan that proves a student release gives nothing away (grader/src/release/leaks.h):
// reference files and the lines only they have, hidden names, withheld seeds.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "release/leaks.h"

using namespace grader;
namespace fs = std::filesystem;

namespace {

// A course repository and a release beside it, removed at exit.
class Trees {
 public:
  Trees() {
    static int count = 0;
    base_ = fs::temp_directory_path() / ("test_release_leaks_" + std::to_string(getpid()) + "_" + std::to_string(++count));
    fs::create_directories(course());
    fs::create_directories(release());
  }
  ~Trees() { fs::remove_all(base_); }
  Trees(const Trees&) = delete;
  Trees& operator=(const Trees&) = delete;
  fs::path course() const { return base_ / "course"; }
  fs::path release() const { return base_ / "release"; }

  static void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }

 private:
  fs::path base_;
};

const std::string solution =
    "#include \"demo.h\"\n"
    "#include <a_very_long_header_name_here.h>\n"
    "double dot(const double* x, const double* y, long n) {\n"   // the skeleton has this line too
    "  double lanes[4] = {0.0, 0.0, 0.0, 0.0};\n"          // only the solution has this one
    "  return lanes[0];\n"                                        // too short to mean anything
    "}\n";

const std::string skeleton =
    "#include \"demo.h\"\n"
    "// In the handout: double dot(const double* x, const double* y, long n) { is what you write.\n"
    "double dot(const double* x, const double* y, long n) {\n"
    "  double sum = 0;\n"
    "  for (long i = 0; i < n; ++i) sum += x[i] * y[i];\n"
    "  return sum;\n"
    "}\n";

void add_a_solution(const Trees& trees) {
  Trees::write(trees.course() / "reference" / "lab9-demo" / "demo.cpp", solution);
  Trees::write(trees.course() / "skeletons" / "lab9-demo" / "demo.cpp", skeleton);
  Trees::write(trees.course() / "grader" / "templates" / "cpp" / "reference.cpp.in",
               "  double lanes[4] = {0.0, 0.0, 0.0, 0.0};\n");  // not shipped, so it makes nothing fair
}

}  // namespace

TEST_CASE("a line only the solution has is evidence; lines the shipped code has, short lines and includes are not") {
  const Trees trees;
  add_a_solution(trees);
  const LeakEvidence evidence = reference_evidence(trees.course());
  REQUIRE(evidence.reference_lines.size() == 1);
  CHECK(evidence.reference_lines.begin()->first == "double lanes[4] = {0.0, 0.0, 0.0, 0.0};");
  CHECK(evidence.reference_lines.begin()->second == "reference/lab9-demo/demo.cpp");
  CHECK(evidence.reference_digests.size() == 1);
}

TEST_CASE("a clean release has no leaks") {
  const Trees trees;
  add_a_solution(trees);
  Trees::write(trees.release() / "skeletons" / "lab9-demo" / "demo.cpp", skeleton);
  Trees::write(trees.release() / "docs" / "guide.md", "Write double dot(const double* x, const double* y, long n) {.\n");
  LeakEvidence evidence = reference_evidence(trees.course());
  evidence.hidden_names = {"tall 4099"};
  evidence.hidden_seeds = {"555000111", "17"};
  CHECK(find_leaks(trees.release(), evidence).empty());
}

TEST_CASE("each kind of leak is found, at its file and line") {
  const Trees trees;
  add_a_solution(trees);
  Trees::write(trees.release() / "docs" / "tricks.md", "# Tricks\n\n```\n    double lanes[4] = {0.0, 0.0, 0.0, 0.0};  // four sums\n```\n");
  Trees::write(trees.release() / "labs" / "lab9-demo" / "copy.cpp", solution);
  Trees::write(trees.release() / "reference" / "lab9-demo" / "notes.txt", "notes\n");
  Trees::write(trees.release() / "labs" / "lab9-demo" / "README.md",
               "Line one.\nThe case tall 4099 is hidden.\nseed = 555000111\nseed = 5550001110 is another number\n");
  LeakEvidence evidence = reference_evidence(trees.course());
  evidence.hidden_names = {"tall 4099"};
  evidence.hidden_seeds = {"555000111"};
  std::vector<std::string> found;
  for (const Leak& leak : find_leaks(trees.release(), evidence)) found.push_back(to_string(leak));
  INFO(doctest::toString(found.size()));
  const std::vector<std::string> expected = {
      "docs/tricks.md:4: quotes reference/lab9-demo/demo.cpp: \"double lanes[4] = {0.0, 0.0, 0.0, 0.0};\"",
      "labs/lab9-demo/README.md:2: names hidden 'tall 4099'",
      "labs/lab9-demo/README.md:3: holds the seed 555000111 of a withheld dataset",
      "labs/lab9-demo/copy.cpp: is a copy of reference/lab9-demo/demo.cpp",
      "labs/lab9-demo/copy.cpp:4: quotes reference/lab9-demo/demo.cpp: \"double lanes[4] = {0.0, 0.0, 0.0, 0.0};\"",
      "reference/lab9-demo/notes.txt: a file of reference/",
  };
  CHECK(found == expected);
}

TEST_CASE("a hidden name in a path is a leak; short seeds are not searched") {
  const Trees trees;
  add_a_solution(trees);
  Trees::write(trees.release() / "datasets" / "lab9-demo" / "withheld-77.x.npy", std::string("\x93NUMPY\0binary", 13));
  Trees::write(trees.release() / "notes.md", "n = 17 is fine\n");
  LeakEvidence evidence;
  evidence.hidden_names = {"withheld-77"};
  evidence.hidden_seeds = {"17"};
  const auto leaks = find_leaks(trees.release(), evidence);
  REQUIRE(leaks.size() == 1);
  CHECK(to_string(leaks[0]) == "datasets/lab9-demo/withheld-77.x.npy: its path names hidden 'withheld-77'");
}
