// test_handouts.cpp: the numbers students and authors read in prose agree with the lab.toml the grader reads.
// A handout written once and a lab.toml tuned later drift apart (lab 1's handout said atol 1e-12 while its
// lab.toml had 1e-10): each check below reads both and fails on the first difference.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "handout/graded_table.h"
#include "spec/lab_spec.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

const fs::path course = fs::path(TESTS_DIR) / "..";

std::string read(const fs::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string one_line(std::string text) {
  text = std::regex_replace(text, std::regex("\\s+"), " ");
  return text;
}

std::vector<LabSpec> labs() {
  std::vector<LabSpec> specs;
  for (const auto& entry : fs::directory_iterator(course / "labs"))
    if (fs::exists(entry.path() / "lab.toml") && fs::exists(entry.path() / "README.md"))
      specs.push_back(load_lab_spec(entry.path()));
  REQUIRE_FALSE(specs.empty());
  return specs;
}

bool same(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

}  // namespace

TEST_CASE("each handout's tolerance formula and total are its lab.toml's") {
  for (const LabSpec& spec : labs()) {
    CAPTURE(spec.name());
    const std::string handout = one_line(read(spec.dir / "README.md"));
    // "|yours - judge| <= 1e-10 + 1e-12 * |judge|": atol, then rtol.
    const std::regex formula(R"(\|yours - (?:judge|exact)\| <= ([0-9.eE+-]+) \+ ([0-9.eE+-]+) \* \|)");
    std::smatch found;
    if (std::regex_search(handout, found, formula)) {
      CHECK_MESSAGE(same(std::stod(found[1]), spec.tolerance.atol), "the handout's atol is " << found[1]);
      CHECK_MESSAGE(same(std::stod(found[2]), spec.tolerance.rtol), "the handout's rtol is " << found[2]);
    }
    const std::regex total(R"(Total: ([0-9]+) points \(([0-9]+) correctness, ([0-9]+) performance\))");
    REQUIRE_MESSAGE(std::regex_search(handout, found, total), "no \"Total: N points (C correctness, P performance)\"");
    double correctness = 0, performance = 0;
    for (const auto& item : spec.correctness) correctness += item.points;
    for (const auto& item : spec.performance) performance += item.max_points();
    CHECK(same(std::stod(found[1]), correctness + performance));
    CHECK(same(std::stod(found[2]), correctness));
    CHECK(same(std::stod(found[3]), performance));
  }
}

// The "What is graded" tables are lab.toml's, written by `grader handout` between the handout's markers: a lab.toml
// edited without running it (a tier moved, a case added, points changed) fails here, naming the command that fixes it.
TEST_CASE("each handout's graded tables are the ones its lab.toml generates") {
  for (const LabSpec& spec : labs()) {
    CAPTURE(spec.name());
    const std::string file = "labs/" + spec.name() + "/README.md";
    const std::string handout = read(spec.dir / "README.md");
    std::string regenerated;
    REQUIRE_NOTHROW(regenerated = with_graded_tables(handout, spec, file));
    const bool same = regenerated == handout;  // a bool, so a failure prints the message, not two whole handouts
    CHECK_MESSAGE(same, file << "'s tables differ from its lab.toml; run `grader handout " << spec.id
                             << "` to write them again");
  }
}

// The markers are read strictly, and the tables say what lab.toml says: a changed tier or case name shows.
TEST_CASE("graded tables: markers read strictly; a changed lab.toml changes the table") {
  const LabSpec spec = load_lab_spec(course / "labs" / "lab1-matvec");
  const std::string handout = read(spec.dir / "README.md");
  const std::string table = graded_table(spec, "performance");
  CHECK(table.find("| unrolled bandwidth, 10000 x 10000 |") != std::string::npos);
  CHECK(table.find("0 points at 0.55x, 20 at 0.7x") != std::string::npos);
  CHECK(table.find("Total: 80 points (40 correctness, 40 performance).") != std::string::npos);
  LabSpec moved = spec;
  moved.performance[0].tiers[1].at = Expr::constant(1.9);
  CHECK(with_graded_tables(handout, moved, "h.md") != handout);
  // Hidden cases are never named, so the student release (which cuts them) generates the same tables.
  const std::string correctness = graded_table(spec, "correctness");
  CHECK(correctness.find("public square 8; square 100; 1 x 1 |") != std::string::npos);
  CHECK(correctness.find("tall 1000 x 7") == std::string::npos);

  const std::string both = "x\n<!-- graded-table correctness -->\n<!-- /graded-table -->\n"
                           "<!-- graded-table performance -->\nold\n<!-- /graded-table -->\ny\n";
  const std::string written = with_graded_tables(both, spec, "h.md");
  CHECK(written.starts_with("x\n<!-- graded-table correctness -->\n\n| item | variant |"));
  CHECK(written.ends_with("<!-- /graded-table -->\ny\n"));
  CHECK(written.find("old") == std::string::npos);
  CHECK(with_graded_tables(written, spec, "h.md") == written);
  CHECK_THROWS_WITH_AS(with_graded_tables("<!-- graded-table scores -->\n", spec, "h.md"),
                       doctest::Contains("h.md:1: unknown graded table 'scores'"), HandoutError);
  CHECK_THROWS_WITH_AS(with_graded_tables("a\n<!-- graded-table correctness -->\n", spec, "h.md"),
                       doctest::Contains("h.md:2: the correctness table is never closed"), HandoutError);
  CHECK_THROWS_WITH_AS(with_graded_tables("<!-- /graded-table -->\n", spec, "h.md"),
                       doctest::Contains("h.md:1: <!-- /graded-table --> closes no table"), HandoutError);
  CHECK_THROWS_WITH_AS(with_graded_tables("<!-- graded-table correctness -->\n<!-- /graded-table -->\n", spec, "h.md"),
                       doctest::Contains("no <!-- graded-table performance -->"), HandoutError);
  CHECK_THROWS_WITH_AS(with_graded_tables(both + both, spec, "h.md"),
                       doctest::Contains("h.md:9: the correctness table is marked twice"), HandoutError);
}

// Names from [handout] make a scaling tier readable: each part equal to a name's `means` is written as the name.
TEST_CASE("tiers that scale with the machine are written with the lab's names, each explained once") {
  const LabSpec spec = load_lab_spec(course / "labs" / "lab3-openmp");
  const std::string table = graded_table(spec, "performance");
  CHECK(table.find("`1 + 0.5 (S - 1)`") != std::string::npos);
  CHECK(table.find("`1 + 0.2 (P - 1)`") != std::string::npos);
  CHECK(table.find("min(max(threads") == table.find("- `p` = `min(max(threads, 2), 16)`") + 9);  // in the legend only
  CHECK(table.find("- `P` = `min(p, cpu_scaling)`: ") != std::string::npos);
}

// The bracketed range after a speedup is explained one way: the student guide's sentence, word for word, in
// every handout that shows a speedup.
TEST_CASE("every handout explains the speedup's range in the student guide's words") {
  const std::string guide = one_line(read(course / "docs" / "student-guide.md"));
  std::smatch found;
  REQUIRE_MESSAGE(std::regex_search(guide, found, std::regex("the range in brackets [^.]*\\.")),
                  "the student guide no longer explains the range in brackets");
  const std::string sentence = found[0];
  for (const LabSpec& spec : labs()) {
    CAPTURE(spec.name());
    const std::string handout = one_line(read(spec.dir / "README.md"));
    const bool speedup = std::any_of(spec.performance.begin(), spec.performance.end(),
                                     [](const PerformanceItem& item) { return item.metric == Metric::speedup; });
    if (!speedup) continue;
    CHECK_MESSAGE(handout.find(sentence) != std::string::npos, "the handout does not say: " << sentence);
  }
}

// The instructor guide's worked tolerances ("- Lab 1: ... `rtol = 1e-12` ... `atol = 1e-10` ...") quote each lab.
TEST_CASE("the instructor guide's tolerance examples quote each lab's lab.toml") {
  const std::string guide = read(course / "docs" / "instructor-guide.md");
  const auto specs = labs();
  const std::regex bullet(R"(\n- Lab ([0-9]+):([^\n]*(?:\n  [^\n]*)*))");
  int quoted = 0;
  for (auto it = std::sregex_iterator(guide.begin(), guide.end(), bullet); it != std::sregex_iterator(); ++it) {
    const std::string id = "lab" + (*it)[1].str();
    const std::string text = (*it)[2];
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const LabSpec& s) { return s.id == id; });
    if (spec == specs.end()) continue;
    CAPTURE(id);
    const std::regex value(R"(`(rtol|atol) = ([0-9.eE+-]+)`)");
    for (auto v = std::sregex_iterator(text.begin(), text.end(), value); v != std::sregex_iterator(); ++v) {
      const double quoted_value = std::stod((*v)[2]);
      CHECK_MESSAGE(same(quoted_value, (*v)[1] == "rtol" ? spec->tolerance.rtol : spec->tolerance.atol),
                    (*v)[0] << " is not " << id << "'s lab.toml");
      ++quoted;
    }
  }
  CHECK(quoted > 0);
}

// docs/lab-toml.md's [tolerance] example says whose it is ("# lab 1's") and must stay that lab's.
TEST_CASE("docs/lab-toml.md's tolerance example quotes the lab it names") {
  const std::string doc = read(course / "docs" / "lab-toml.md");
  const std::regex example(R"(# lab ([0-9]+)'s\n\[tolerance\]\nrtol = ([0-9.eE+-]+)\natol = ([0-9.eE+-]+))");
  std::smatch found;
  REQUIRE_MESSAGE(std::regex_search(doc, found, example), "docs/lab-toml.md has no \"# lab N's\" [tolerance] example");
  const std::string id = "lab" + found[1].str();
  const auto specs = labs();
  const auto spec = std::find_if(specs.begin(), specs.end(), [&](const LabSpec& s) { return s.id == id; });
  REQUIRE_MESSAGE(spec != specs.end(), "the example names " << id << ", which is not a lab");
  CHECK_MESSAGE(same(std::stod(found[2]), spec->tolerance.rtol), "its rtol " << found[2] << " is not " << id << "'s");
  CHECK_MESSAGE(same(std::stod(found[3]), spec->tolerance.atol), "its atol " << found[3] << " is not " << id << "'s");
}
