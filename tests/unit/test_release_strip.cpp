// test_release_strip.cpp: cutting hidden cases and benchmarks out of a lab.toml for the student release
// (grader/src/release/strip.h): what goes, what stays (comments included), and the layouts it refuses.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "release/strip.h"

using namespace grader;
namespace fs = std::filesystem;

namespace {

// labs/lab9-demo/ with the files a lab.toml names, under a directory removed at exit.
class TempLab {
 public:
  TempLab() {
    static int count = 0;
    root_ = fs::temp_directory_path() / ("test_release_strip_" + std::to_string(getpid()) + "_" + std::to_string(++count));
    fs::create_directories(dir());
    for (const char* file : {"demo.h", "harness.cpp", "baseline.cpp"}) std::ofstream(dir() / file) << "\n";
  }
  ~TempLab() { fs::remove_all(root_); }
  fs::path dir() const { return root_ / "labs" / "lab9-demo"; }

  // The stripped text of `text`, read as this lab's lab.toml.
  StrippedSpec strip(const std::string& text) const {
    const LabSpec spec = parse_lab_spec(text, dir() / "lab.toml");
    return strip_hidden(text, spec);
  }
  LabSpec parse(const std::string& text) const { return parse_lab_spec(text, dir() / "lab.toml"); }

 private:
  fs::path root_;
};

const std::string head = R"(# Demo lab.
[lab]
id = "lab9"
slug = "demo"
title = "Demo"

[build]
student_files = ["demo.cpp"]
headers = ["demo.h"]
harness = ["harness.cpp"]
baseline = ["baseline.cpp"]
)";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

int count_hidden(const LabSpec& spec) {
  int hidden = 0;
  for (const auto& item : spec.correctness)
    for (const auto& c : item.cases) hidden += withheld_from_students(c.visibility);
  for (const auto& item : spec.performance) hidden += withheld_from_students(item.visibility);
  return hidden;
}

}  // namespace

TEST_CASE("a lab without hidden cases comes back unchanged") {
  TempLab lab;
  const std::string text = head + R"(
[[correctness]]
name = "fast"
points = 10
variants = ["fast"]
cases = [ { name = "n 10", params = { n = 10 } } ]
)";
  const StrippedSpec stripped = lab.strip(text);
  CHECK(stripped.text == text);
  CHECK(stripped.cases_removed == 0);
  CHECK(stripped.items_removed == 0);
}

TEST_CASE("hidden cases on their own lines go with the comments above them; the rest stays as written") {
  TempLab lab;
  const std::string text = head + R"(
# Correctness of the fast version.
[[correctness]]
name = "fast"
points = 10
variants = ["fast"]
cases = [
  { name = "n 10", params = { n = 10 } },   # the public one
  # the stress case: nobody guesses 4099
  { name = "tall 4099", params = { n = 4099 }, visibility = "hidden" },
  { name = "n 20", params = { n = 20 } },
  { name = "graded later", params = { n = 31 }, visibility = "after_due_date" },
]
)";
  const StrippedSpec stripped = lab.strip(text);
  CHECK(stripped.cases_removed == 2);
  CHECK(stripped.items_removed == 0);
  CHECK(stripped.hidden_names == std::vector<std::string>{"tall 4099", "graded later"});
  CHECK_FALSE(contains(stripped.text, "4099"));
  CHECK_FALSE(contains(stripped.text, "graded later"));
  CHECK_FALSE(contains(stripped.text, "stress case"));
  CHECK(contains(stripped.text, "# Correctness of the fast version.\n[[correctness]]"));
  CHECK(contains(stripped.text, "  { name = \"n 10\", params = { n = 10 } },   # the public one\n"
                                "  { name = \"n 20\", params = { n = 20 } },\n]\n"));
  CHECK(stripped.text.rfind("# Student release", 0) == 0);  // says so at the top
  CHECK(contains(stripped.text, "2 hidden case(s) and 0 hidden item(s)"));

  const LabSpec spec = lab.parse(stripped.text);
  REQUIRE(spec.correctness.size() == 1);
  REQUIRE(spec.correctness[0].cases.size() == 2);
  CHECK(spec.correctness[0].cases[1].name == "n 20");
  CHECK(count_hidden(spec) == 0);
}

TEST_CASE("a hidden case sharing its line with visible ones is cut out of the line, with its comma and the comment") {
  TempLab lab;
  const std::string text = head + R"(
[[correctness]]
name = "fast"
points = 10
variants = ["fast"]
cases = [ { name = "a}b", params = { n = 1 } }, { name = "tall 4099", params = { n = 4099 }, visibility = "hidden" }, { name = "n 20", params = { n = 20 } } ]  # 4099 is the hard one
)";
  const StrippedSpec stripped = lab.strip(text);
  CHECK(contains(stripped.text, "cases = [ { name = \"a}b\", params = { n = 1 } }, { name = \"n 20\", params = { n = 20 } } ]\n"));
  CHECK_FALSE(contains(stripped.text, "4099"));
  CHECK(lab.parse(stripped.text).correctness[0].cases.size() == 2);
}

TEST_CASE("a hidden case after non-ASCII text on its line is found by its column in characters") {
  TempLab lab;
  const std::string text = head + R"(
[[correctness]]
name = "fast"
points = 10
variants = ["fast"]
cases = [ { name = "n = 10, ça va", params = { n = 10 } }, { name = "größer 4099", params = { n = 4099 }, visibility = "hidden" } ]
)";
  const StrippedSpec stripped = lab.strip(text);
  CHECK(contains(stripped.text, "cases = [ { name = \"n = 10, ça va\", params = { n = 10 } }, ]\n"));
  CHECK_FALSE(contains(stripped.text, "4099"));
}

TEST_CASE("a hidden benchmark goes from its comment to the next table; the next table's comment stays") {
  TempLab lab;
  const std::string text = head + R"(
[[correctness]]
name = "fast"
points = 10
variants = ["fast"]
cases = [ { name = "n 10", params = { n = 10 } } ]

# The secret benchmark, n = 123457.
[[performance]]
name = "secret size"
variant = "fast"
params = { n = 123457 }
baseline = { variant = "fast" }
tiers = [ { at = 1.5, points = 0 }, { at = 3, points = 10 } ]
visibility = "hidden"

# The public benchmark.
[[performance]]
name = "public size"
variant = "fast"
params = { n = 1000 }
tiers = [ { at = 1.5, points = 0 }, { at = 3, points = 10 } ]
)";
  const StrippedSpec stripped = lab.strip(text);
  CHECK(stripped.items_removed == 1);
  CHECK(stripped.hidden_names == std::vector<std::string>{"secret size"});
  CHECK_FALSE(contains(stripped.text, "secret"));
  CHECK_FALSE(contains(stripped.text, "123457"));
  CHECK(contains(stripped.text, "cases = [ { name = \"n 10\", params = { n = 10 } } ]\n\n# The public benchmark.\n[[performance]]\n"
                                "name = \"public size\""));
  const LabSpec spec = lab.parse(stripped.text);
  REQUIRE(spec.performance.size() == 1);
  CHECK(spec.performance[0].name == "public size");
  CHECK(spec.withheld == 1);  // the student's report still counts the hidden benchmark
}

TEST_CASE("a hidden benchmark written with sub-tables goes whole, and so does the last table of the file") {
  TempLab lab;
  const std::string text = head + R"(
[[correctness]]
name = "fast"
points = 10
variants = ["fast"]
cases = [ { name = "n 10", params = { n = 10 } } ]

[[performance]]
name = "secret size"
variant = "fast"
visibility = "hidden"
[performance.params]
n = 123457
[[performance.tiers]]
at = 1.5
points = 0
[[performance.tiers]]
at = 3
points = 10
)";
  const StrippedSpec stripped = lab.strip(text);
  CHECK_FALSE(contains(stripped.text, "secret"));
  CHECK_FALSE(contains(stripped.text, "[performance"));
  CHECK_FALSE(contains(stripped.text, "123457"));
  CHECK(lab.parse(stripped.text).performance.empty());
}

TEST_CASE("a correctness item whose cases are all hidden goes whole, with its name") {
  TempLab lab;
  const std::string text = head + R"(
[[correctness]]
name = "fast"
points = 10
variants = ["fast"]
cases = [ { name = "n 10", params = { n = 10 } } ]

# Only the staff grade this one.
[[correctness]]
name = "secret sizes"
points = 5
variants = ["fast"]
cases = [
  { name = "n 4099", params = { n = 4099 }, visibility = "hidden" },
  { name = "n 8191", params = { n = 8191 }, visibility = "after_due_date" },
]
)";
  const StrippedSpec stripped = lab.strip(text);
  CHECK(stripped.items_removed == 1);
  CHECK(stripped.cases_removed == 2);
  CHECK(stripped.hidden_names == std::vector<std::string>{"secret sizes", "n 4099", "n 8191"});
  CHECK_FALSE(contains(stripped.text, "secret"));
  CHECK_FALSE(contains(stripped.text, "Only the staff"));
  const LabSpec spec = lab.parse(stripped.text);
  REQUIRE(spec.correctness.size() == 1);
  CHECK(spec.correctness[0].name == "fast");
  // Counted as the course repository's report counts it: by its cases, not the item they were in.
  CHECK(stripped.withheld == 2);
  CHECK(spec.withheld == 2);
  CHECK(contains(stripped.text, "[lab]\n# How many hidden cases"));
}

TEST_CASE("a visible benchmark that requires an item the release removes is refused at its line") {
  TempLab lab;
  const std::string text = head + R"(
[[correctness]]
name = "fast"
points = 10
variants = ["fast"]
cases = [ { name = "n 10", params = { n = 10 } } ]

[[correctness]]
name = "secret sizes"
points = 5
variants = ["fast"]
cases = [ { name = "n 4099", params = { n = 4099 }, visibility = "hidden" } ]

[[performance]]
name = "speed"
variant = "fast"
params = { n = 1000 }
tiers = [ { at = 1.5, points = 0 }, { at = 3, points = 10 } ]
requires = ["secret sizes"]
)";
  try {
    (void)lab.strip(text);
    FAIL("strip_hidden accepted a benchmark that requires a removed item");
  } catch (const ReleaseError& error) {
    const std::string message = error.what();
    INFO(message);
    CHECK(message.rfind((lab.dir() / "lab.toml").string() + ":25:", 0) == 0);  // the [[performance]] header
    CHECK(contains(message, "requires 'secret sizes'"));
  }
}
