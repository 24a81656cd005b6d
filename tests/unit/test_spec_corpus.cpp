// test_spec_corpus.cpp: a corpus of bad lab.toml files (issue 19, "lab.toml values that corrupt grades or defences"),
// one row each: what it is, the edit of a valid spec that makes it, and the line and words of the error it must give.
// Each was once accepted (NaN points, atol = inf, memory_mb wrapping to 0), crashed or hung every command (20,000
// parentheses, a FIFO), or surfaced only when students were graded (a size of 0, a descending tier ladder). The test
// prints one line per row, so the count and each outcome can be read from `ctest -V -R test_spec_corpus`.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "spec/lab_spec.h"
#include "spec/spec_checks.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

// labs/lab9-demo in a fresh folder, with the files the spec lists and a datasets manifest naming "tiny".
class Course {
 public:
  Course() {
    std::string pattern = (fs::temp_directory_path() / "test_spec_corpus-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    root_ = pattern;
    fs::create_directories(lab_dir());
    for (const char* file : {"demo.h", "harness.cpp", "baseline.cpp"}) std::ofstream(lab_dir() / file) << "// x\n";
    fs::create_directories(root_ / "datasets" / "lab9-demo");
    std::ofstream(root_ / "datasets" / "lab9-demo" / "manifest.toml")
        << "[[dataset]]\nname = \"tiny\"\nseed = 1\nvariant = \"fast\"\nparams = { n = 4 }\n";
  }
  ~Course() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  fs::path root() const { return root_; }
  fs::path lab_dir() const { return root_ / "labs" / "lab9-demo"; }

 private:
  fs::path root_;
};

const std::string valid_spec = R"([lab]
id = "lab9"
slug = "demo"
title = "Demo"

[build]
student_files = ["demo.cpp"]
headers = ["demo.h"]
harness = ["harness.cpp"]
baseline = ["baseline.cpp"]

[[correctness]]
name = "small"
points = 10
variants = ["fast"]
cases = [ { name = "n 10", params = { n = 10 } } ]

[[performance]]
name = "fast speedup"
variant = "fast"
params = { n = 1000 }
flops = "2*n"
tiers = [ { at = 1.5, points = 0 }, { at = 3, points = 10 } ]
)";

std::string edit(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "the valid spec has no '" << from << "'");
  return text.replace(at, from.size(), to);
}

struct BadSpec {
  const char* what;
  std::string from, to;  // the edit of valid_spec
  int line;              // where the error must point (0: the file as a whole)
  const char* words;     // what the message must say
};

const std::string limits_before = "\n[[correctness]]";
std::string with_section(const std::string& section) { return "\n" + section + "\n\n[[correctness]]"; }

std::vector<BadSpec> corpus() {
  return {
      {"points = nan", "points = 10", "points = nan", 14, "must be a finite number, got nan"},
      {"points = inf", "points = 10", "points = inf", 14, "must be a finite number, got inf"},
      {"points = 1e30", "points = 10", "points = 1e30", 14, "must be at most"},
      {"tier points = nan", "{ at = 3, points = 10 }", "{ at = 3, points = nan }", 23, "finite number"},
      {"[tolerance] atol = inf", limits_before, with_section("[tolerance]\natol = inf"), 13, "finite number, got inf"},
      {"[tolerance] rtol = -inf", limits_before, with_section("[tolerance]\nrtol = -inf"), 13, "finite number"},
      {"[limits] memory_mb = 2^44", limits_before, with_section("[limits]\nmemory_mb = 17592186044416"), 13, "must be at most 16777216"},
      {"[limits] cpu_seconds = inf", limits_before, with_section("[limits]\ncpu_seconds = inf"), 13, "finite number"},
      {"[limits] wall_seconds = 1e12", limits_before, with_section("[limits]\nwall_seconds = 1e12"), 13, "must be at most"},
      {"[limits] output_kb = 2^60", limits_before, with_section("[limits]\noutput_kb = 1152921504606846976"), 13, "must be at most"},
      {"[timing] max_seconds = inf", limits_before, with_section("[timing]\nmax_seconds = inf"), 13, "finite number"},
      {"[build] max_file_kb = 2^54", "baseline = [\"baseline.cpp\"]", "baseline = [\"baseline.cpp\"]\nmax_file_kb = 18014398509481984", 11, "must be at most"},
      {"20,000 nested parentheses", "flops = \"2*n\"", "flops = \"" + std::string(20000, '(') + "n" + std::string(20000, ')') + "\"", 22, "characters long"},
      {"200,000 '-' signs", "flops = \"2*n\"", "flops = \"" + std::string(200000, '-') + "n\"", 22, "characters long"},
      {"100 nested parentheses (short)", "flops = \"2*n\"", "flops = \"" + std::string(100, '(') + "n" + std::string(100, ')') + "\"", 22, "levels deep"},
      {"100 '-' signs (short)", "flops = \"2*n\"", "flops = \"" + std::string(100, '-') + "n\"", 22, "levels deep"},
      {"flops divides by zero for n = 1000", "flops = \"2*n\"", "flops = \"2*n/(n - 1000)\"", 18, "'flops' of benchmark 'fast speedup' has no value"},
      {"flops overflows for n = 1000", "flops = \"2*n\"", "flops = \"n^n\"", 18, "has no value"},
      {"bytes negative", "flops = \"2*n\"", "flops = \"2*n\"\nbytes = \"-n\"", 18, "'bytes' of benchmark 'fast speedup' is negative"},
      {"cpu_threads below 1 on one thread", "flops = \"2*n\"", "flops = \"2*n\"\ncpu_threads = \"threads - 2\"", 18, "'cpu_threads'"},
      {"tiers by expression descend on 8 threads", "{ at = 1.5, points = 0 }, { at = 3, points = 10 }", "{ at = \"threads\", points = 0 }, { at = 6, points = 10 }", 23, "tiers must ascend"},
      {"benchmark size 0 (flops reads it)", "params = { n = 1000 }", "params = { n = 0 }", 18, "sizes the timed work"},
      {"case size negative", "params = { n = 10 }", "params = { n = -5 }", 16, "must be from 0 to 2^40"},
      {"case size absurd (2^50)", "params = { n = 10 }", "params = { n = 1125899906842624 }", 16, "must be from 0 to 2^40"},
      {"case size fractional (n/3)", "params = { n = 10 }", "params = { n = 10, m = \"n/3\" }", 16, "not a whole number"},
      {"benchmark size from threads reaches 0", "params = { n = 1000 }", "params = { n = \"threads - 1\" }", 18, "sizes the timed work"},
      {"a parameter that is a NaN", "params = { n = 10 }", "params = { n = 10, x = \"sqrt(0 - n)\" }", 16, "no value"},
      {"a lab with no items", "\n[[correctness]]", "\n[[unused]]", 0, ""},  // replaced below: see no_items
      {"student_files [\".\"]", "[\"demo.cpp\"]", "[\".\"]", 7, "plain file name"},
      {"student_files with NUL", "[\"demo.cpp\"]", "[\"demo\\u0000.cpp\"]", 7, "plain file name"},
      {"student_files with a newline", "[\"demo.cpp\"]", "[\"demo\\n.cpp\"]", 7, "plain file name"},
      {"student_files starting with '-'", "[\"demo.cpp\"]", "[\"-o.cpp\"]", 7, "plain file name"},
      {"hint without words", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { below = 2, text = \"\" } ]", 24, "must not be empty"},
      {"hint below 0", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { below = -1, text = \"try\" } ]", 24, "'below' must be above 0"},
      {"hint never shown (descending below)", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { below = 2, text = \"a\" }, { below = 1.5, text = \"b\" } ]", 24, "never shown"},
      {"hint with a misspelt key", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { below = 2, txt = \"a\" } ]", 24, "txt"},
      {"hint without below", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { text = \"a\" } ]", 24, "missing required key 'below'"},
      {"hint below reads an unknown name", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { below = \"2*m\", text = \"a\" } ]", 24, "reads 'm'"},
      {"hint of an unknown figure", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { of = \"bandwidth\", below = 2, text = \"a\" } ]", 24, "expected one of"},
      {"hint longer than 400 bytes", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { below = 2, text = \"" + std::string(401, 'x') + "\" } ]", 24, "at most 400 bytes"},
      {"roofline hint on an item with no flops or bytes", "flops = \"2*n\"\ntiers = [ { at = 1.5, points = 0 }, { at = 3, points = 10 } ]", "tiers = [ { at = 1.5, points = 0 }, { at = 3, points = 10 } ]\nhints = [ { of = \"roofline\", below = 0.5, text = \"a\" } ]", 23, "needs the benchmark's 'flops' or 'bytes'"},
      {"unknown dataset", "cases = [ { name = \"n 10\", params = { n = 10 } } ]", "cases = [ { name = \"d\", dataset = \"nope\" } ]", 16, "does not list"},
  };
}

}  // namespace

TEST_CASE("every bad spec of the corpus is refused where it is written, with file:line:column") {
  int refused = 0, total = 0;
  for (BadSpec bad : corpus()) {
    std::string text = edit(valid_spec, bad.from, bad.to);
    if (std::string(bad.what) == "a lab with no items") {
      text = valid_spec.substr(0, valid_spec.find("[[correctness]]"));
      bad.line = 1;
      bad.words = "nothing to grade";
    }
    ++total;
    INFO("corpus row: " << bad.what);
    Course course;
    std::ofstream(course.lab_dir() / "lab.toml") << text;
    std::string outcome;
    try {
      check_spec_datasets(load_lab_spec(course.lab_dir()), course.root());  // as `grader` loads a lab
      outcome = "ACCEPTED";
    } catch (const SpecError& error) {
      outcome = error.what();
      CHECK(error.where().file == (course.lab_dir() / "lab.toml").string());
      CHECK(error.where().line == bad.line);
      CHECK(error.where().column >= 1);
      CHECK(error.message().find(bad.words) != std::string::npos);
      if (error.where().line == bad.line && error.message().find(bad.words) != std::string::npos) ++refused;
    }
    CHECK(outcome != "ACCEPTED");
    std::cout << "spec corpus: " << bad.what << " -> " << outcome.substr(outcome.find("lab.toml") == std::string::npos ? 0 : outcome.find("lab.toml"), 160) << "\n";
  }
  std::cout << "spec corpus: " << refused << " of " << total << " refused where written\n";
  CHECK(refused == total);
}

TEST_CASE("a lab.toml that is a FIFO or a folder is refused at once, without hanging") {
  Course course;
  const fs::path file = course.lab_dir() / "lab.toml";
  REQUIRE(::mkfifo(file.c_str(), 0644) == 0);
  CHECK_THROWS_WITH_AS(load_lab_spec(course.lab_dir()), doctest::Contains("not a regular file"), SpecError);
  fs::remove(file);
  fs::create_directories(file);
  CHECK_THROWS_WITH_AS(load_lab_spec(course.lab_dir()), doctest::Contains("not a regular file"), SpecError);
  std::cout << "spec corpus: lab.toml a FIFO -> refused; lab.toml a folder -> refused\n";
}

TEST_CASE("a lab folder with a number too long for any integer is listed, not a crash") {
  Course course;
  for (const char* name : {"lab99999999999999999999-big", "lab2-two", "lab10-ten"}) {
    fs::create_directories(course.root() / "labs" / name);
    std::ofstream(course.root() / "labs" / name / "lab.toml") << "\n";
  }
  std::vector<std::string> ids;
  CHECK_NOTHROW([&] {
    const Catalog catalog(course.root() / "labs");
    for (const auto& entry : catalog.entries()) ids.push_back(entry.id);
  }());
  CHECK(ids == std::vector<std::string>{"lab2", "lab10", "lab99999999999999999999"});  // lab9-demo has no lab.toml
  std::cout << "spec corpus: lab folder lab99999999999999999999-big -> listed after lab10\n";
}

TEST_CASE("the valid spec of the corpus is accepted (the corpus rows fail for their edit alone)") {
  Course course;
  std::ofstream(course.lab_dir() / "lab.toml") << valid_spec;
  CHECK_NOTHROW(check_spec_datasets(load_lab_spec(course.lab_dir()), course.root()));
  // An empty input is a fair correctness case, and a switch (lie = 0) is no size: both are accepted.
  std::ofstream(course.lab_dir() / "lab.toml")
      << edit(edit(valid_spec, "params = { n = 10 }", "params = { n = 0 }"), "params = { n = 1000 }", "params = { n = 1000, lie = 0 }");
  CHECK_NOTHROW(load_lab_spec(course.lab_dir()));
}
