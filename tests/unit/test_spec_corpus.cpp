// test_spec_corpus.cpp: a corpus of bad lab.toml files (issue 19, "lab.toml values that corrupt grades or defences";
// issue 32, "an instructor's mistake is reported as the grader's fault"), one row each: what it is, the edit of a valid
// spec that makes it, and the line and words of the error it must give. Each was once accepted (NaN points,
// atol = inf, memory_mb wrapping to 0), crashed or hung every command (20,000 parentheses, a FIFO), or surfaced only
// when students were graded, as an internal error (exit 4) or not at all (a size of 0, 2.5, 1e300, terabytes or one
// that wraps int64; a variant the harness does not run or the header does not declare; a descending tier ladder). The
// test prints one line per row, so the count and each outcome can be read from `ctest -V -R test_spec_corpus`.
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

// labs/lab9-demo in a fresh folder, with the files the spec lists, written as a lab kit lab's are (the harness names
// its variants and reads n and k as integers; the header declares the one student function), and a datasets manifest
// naming "tiny" and "empty" (n = 0).
class Course {
 public:
  Course() {
    std::string pattern = (fs::temp_directory_path() / "test_spec_corpus-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    root_ = pattern;
    fs::create_directories(lab_dir());
    std::ofstream(lab_dir() / "demo.h") << "// demo.h\nvoid demo_fast(const double* x, double* y, long n);\n";
    std::ofstream(lab_dir() / "harness.cpp")
        << "// harness.cpp: no \"slow\" variant yet\n#include \"demo.h\"\nstruct Demo : labkit::Problem {\n"
           "  std::vector<std::string> variants() const override { return {\"fast\", \"judge_only\"}; }\n"
           "  void setup(labkit::Case& c) override { n = c.params.integer(\"n\"); k = c.params.integer(\"k\", 1); }\n};\n";
    std::ofstream(lab_dir() / "baseline.cpp") << "// x\n";
    fs::create_directories(root_ / "datasets" / "lab9-demo");
    std::ofstream(root_ / "datasets" / "lab9-demo" / "manifest.toml")
        << "[[dataset]]\nname = \"tiny\"\nseed = 1\nvariant = \"fast\"\nparams = { n = 4 }\n"
           "[[dataset]]\nname = \"empty\"\nseed = 2\nvariant = \"fast\"\nparams = { n = 0 }\n";
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
  std::string from2 = {}, to2 = {};  // a second edit, where a row needs one (after the first)
};

std::string nested(const std::string& open, const std::string& inside, const std::string& close, int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += open;
  text += inside;
  for (int i = 0; i < depth; ++i) text += close;
  return text;
}

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
      {"case size negative", "params = { n = 10 }", "params = { n = -5 }", 16, "must be from 1 to 2^40"},
      {"case size absurd (2^50)", "params = { n = 10 }", "params = { n = 1125899906842624 }", 16, "at most 2^40"},
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

      // Issue 32: sizes the harness would refuse, round or overflow, refused where the case or benchmark is written.
      // 'n' is a size here: the benchmark's flops read it, so it is one in every case too.
      {"case size 0", "params = { n = 10 }", "params = { n = 0 }", 16, "sizes the timed work"},
      {"case size a fraction (2.5)", "params = { n = 10 }", "params = { n = 2.5 }", 16, "not a whole number"},
      {"case size a fraction by expression", "params = { n = 10 }", "params = { n = \"21/2\" }", 16, "not a whole number"},
      {"case size 1e300", "params = { n = 10 }", "params = { n = 1e300 }", 16, "at most 2^40"},
      {"case size -3.0", "params = { n = 10 }", "params = { n = -3.0 }", 16, "from 1 to 2^40"},
      {"case size int64's largest", "params = { n = 10 }", "params = { n = 9223372036854775807 }", 16, "at most 2^40"},
      {"case size 2^63 by expression", "params = { n = 10 }", "params = { n = \"2^63\" }", 16, "at most 2^40"},
      {"case sizes whose product wraps int64", "params = { n = 10 }", "params = { n = 1073741824, k = 1073741824 }", 16, "multiply to"},
      {"case of terabytes (bytes = 8n, n = 2^40)", "params = { n = 10 }", "params = { n = 1099511627776 }", 16,
       "more than the lab's memory limit", "flops = \"2*n\"", "flops = \"2*n\"\nbytes = \"8*n\""},
      {"case of 5 GB in a 4096 MB lab", "params = { n = 10 }", "params = { n = 625000000 }", 16,
       "memory_mb", "flops = \"2*n\"", "flops = \"2*n\"\nbytes = \"8*n\""},
      {"benchmark of terabytes", "params = { n = 1000 }", "params = { n = 1000000000000 }", 18, "more than the lab's memory limit",
       "flops = \"2*n\"", "flops = \"2*n\"\nbytes = \"8*n\""},
      {"benchmark size 0.5 written as a decimal", "params = { n = 1000 }", "params = { n = 0.5 }", 18, "not a whole number"},
      {"benchmark baseline's size 0", "params = { n = 1000 }", "params = { n = 1000 }\nbaseline = { params = { n = 0 } }", 18, "sizes the timed work"},
      {"a case's thread count 0 (a benchmark's cpu_threads reads it)", "params = { n = 1000 }",
       "params = { n = 1000, k = 2 }\ncpu_threads = \"k\"", 16, "'cpu_threads' reads it", "params = { n = 10 }", "params = { n = 10, k = 0 }"},
      {"an integer the harness reads, given as 2.5", "params = { n = 10 }", "params = { n = 10, k = 2.5 }", 16, "params.integer()"},
      {"a dataset whose manifest gives size 0", "cases = [ { name = \"n 10\", params = { n = 10 } } ]",
       "cases = [ { name = \"d\", dataset = \"empty\" } ]", 16, "sizes the timed work"},

      // Issue 32: variants the harness does not run, or the student's code does not have.
      {"a graded variant the harness does not name", "variants = [\"fast\"]", "variants = [\"fastest\"]", 15, "no variant 'fastest'"},
      {"a graded variant named only in a comment", "variants = [\"fast\"]", "variants = [\"slow\"]", 15, "no variant 'slow'"},
      {"a graded variant only the judge has (the header does not declare it)", "variants = [\"fast\"]",
       "variants = [\"fast\", \"judge_only\"]", 15, "declares no function"},
      {"a benchmark variant the harness does not name", "variant = \"fast\"", "variant = \"fastest\"", 20, "no variant 'fastest'"},
      {"a baseline variant that does not exist", "params = { n = 1000 }", "params = { n = 1000 }\nbaseline = { variant = \"nope\" }", 22, "no variant 'nope'"},
      {"a candidate baseline only the judge has", "params = { n = 1000 }",
       "params = { n = 1000 }\nbaseline = { process = \"candidate\", variant = \"judge_only\" }", 22, "declares no function"},
      {"a cap that does not exist", "params = { n = 1000 }",
       "params = { n = 1000 }\nbaseline = { process = \"candidate\", params = { n = 500 }, cap = \"nope\" }", 22, "no variant 'nope'"},
      {"an oracle baseline in the candidate's process", "params = { n = 1000 }",
       "params = { n = 1000 }\nbaseline = { process = \"candidate\", params = { n = 500 }, oracle = true }", 22,
       "'oracle' needs the judge's baseline"},
      {"an oracle baseline on other params", "params = { n = 1000 }",
       "params = { n = 1000 }\nbaseline = { params = { n = 500 }, oracle = true }", 22, "'oracle' needs the judge's baseline"},
      {"a compare that does not exist", "params = { n = 1000 }", "params = { n = 1000 }\ncompare = [\"cublas\"]", 22, "no variant 'cublas'"},
      {"a candidate compare the header does not declare", "params = { n = 1000 }",
       "params = { n = 1000 }\ncompare = [\"candidate:judge_only\"]", 22, "declares no function"},
      {"a bound that does not exist", "params = { n = 1000 }", "params = { n = 1000 }\nbound = \"nope\"", 22, "no variant 'nope'"},

      // Issue 32: deep nesting anywhere an expression or a value is written, refused at its line.
      {"70 nested parentheses in a case parameter", "params = { n = 10 }", "params = { n = \"" + nested("(", "10", ")", 70) + "\" }", 16, "levels deep"},
      {"70 nested min() in a benchmark parameter", "params = { n = 1000 }", "params = { n = \"" + nested("min(", "1000", ", 2000)", 70) + "\" }", 21, "levels deep"},
      {"a 70-high power tower in a tier", "{ at = 3, points = 10 }", "{ at = \"" + nested("2^", "1", "", 70) + "\", points = 10 }", 23, "levels deep"},
      {"70 nested parentheses in a hint", "{ at = 3, points = 10 } ]", "{ at = 3, points = 10 } ]\nhints = [ { below = \"" + nested("(", "2", ")", 70) + "\", text = \"a\" } ]", 24, "levels deep"},
      {"70 nested parentheses in a multi-line string", "flops = \"2*n\"", "flops = \"\"\"" + nested("(", "n", ")", 70) + "\"\"\"", 22, "levels deep"},
      {"70 nested parentheses, written with escapes", "flops = \"2*n\"", "flops = \"\\u0028" + nested("(", "n", ")", 69) + ")\"", 22, "levels deep"},
      {"70 nested max() in a [handout] name", "\n[[correctness]]", "\n[handout]\nnames = [ { name = \"p\", means = \"" +
       nested("max(", "threads", ", 2)", 70) + "\", text = \"p\" } ]\n\n[[correctness]]", 13, "levels deep"},
      {"300 nested TOML arrays in a parameter", "params = { n = 10 }", "params = { n = " + nested("[", "1", "]", 300) + " }", 16, "nested value depth"},
      {"300 nested TOML tables in a parameter", "params = { n = 10 }", "params = { n = " + nested("{ a = ", "1", " }", 300) + " }", 16, "nested value depth"},
  };
}

}  // namespace

TEST_CASE("every bad spec of the corpus is refused where it is written, with file:line:column") {
  int refused = 0, total = 0;
  for (BadSpec bad : corpus()) {
    std::string text = edit(valid_spec, bad.from, bad.to);
    if (!bad.from2.empty()) text = edit(text, bad.from2, bad.to2);
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
  // A switch (lie = 0) is no size, a decimal no integer (alpha = 0.5), and 4096 MB hold a 4000 MB case: all accepted.
  std::ofstream(course.lab_dir() / "lab.toml")
      << edit(edit(edit(valid_spec, "params = { n = 10 }", "params = { n = 500000000, alpha = 0.5, lie = 0 }"),
                   "params = { n = 1000 }", "params = { n = 1000, lie = 0 }"),
              "flops = \"2*n\"", "flops = \"2*n\"\nbytes = \"8*n\"");
  CHECK_NOTHROW(load_lab_spec(course.lab_dir()));
  // A variant named in a table of its own, in a file beside lab.toml that [build] does not list, is found there.
  std::ofstream(course.lab_dir() / "table.h") << "const char* names[] = {\"extra\"};\n";
  std::ofstream(course.lab_dir() / "demo.h") << "void demo_fast(const double* x, double* y, long n);\nvoid demo_extra(long n);\n";
  std::ofstream(course.lab_dir() / "lab.toml") << edit(valid_spec, "variants = [\"fast\"]", "variants = [\"fast\", \"extra\"]");
  CHECK_NOTHROW(load_lab_spec(course.lab_dir()));
  // A lab whose sources are not written against the lab kit (no variants() anywhere) has its variants taken as
  // written: nothing can be read from it.
  std::ofstream(course.lab_dir() / "harness.cpp") << "// a harness of another kind\n";
  std::ofstream(course.lab_dir() / "demo.h") << "// declares nothing\n";
  std::ofstream(course.lab_dir() / "lab.toml") << edit(valid_spec, "variants = [\"fast\"]", "variants = [\"fast\", \"other\"]");
  CHECK_NOTHROW(load_lab_spec(course.lab_dir()));
}
