// test_verdict.cpp: the verdict table (grader/src/report/verdict.h): every verdict named once, and the
// names read back.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "report/verdict.h"

using grader::Verdict;

namespace {

// Every enumerator, in declaration order: internal_error is the last (verdict.h says so), so none is missed, and
// the table is not listed a second time here.
std::vector<Verdict> every_verdict() {
  std::vector<Verdict> verdicts;
  for (int v = 0; v <= static_cast<int>(Verdict::internal_error); ++v) verdicts.push_back(static_cast<Verdict>(v));
  return verdicts;
}
const std::vector<Verdict> all_verdicts = every_verdict();

}  // namespace

TEST_CASE("every verdict has its own row, name and label") {
  std::set<std::string> names, labels;
  for (Verdict v : all_verdicts) {
    const auto& row = grader::info(v);
    CAPTURE(row.name);
    CHECK(row.verdict == v);  // not the fallback row of another verdict
    CHECK(!row.name.empty());
    CHECK(!row.label.empty());
    CHECK(grader::to_string(v) == row.name);
    CHECK(names.insert(std::string(row.name)).second);
    CHECK(labels.insert(std::string(row.label)).second);
  }
  CHECK(names.size() == all_verdicts.size());
  CHECK(grader::all_verdicts().size() == all_verdicts.size());  // the table has a row for each, and no more
}

TEST_CASE("names are stable identifiers: lower case and underscores") {
  for (Verdict v : all_verdicts) {
    const std::string name(grader::to_string(v));
    CAPTURE(name);
    for (char c : name) CHECK(((c >= 'a' && c <= 'z') || c == '_'));
  }
}

TEST_CASE("verdict_from_string reads every name back") {
  for (Verdict v : all_verdicts) {
    Verdict read = Verdict::internal_error == v ? Verdict::passed : Verdict::internal_error;
    CAPTURE(grader::to_string(v));
    REQUIRE(grader::verdict_from_string(grader::to_string(v), read));
    CHECK(read == v);
  }
}

TEST_CASE("verdict_from_string refuses what is not a name") {
  Verdict read = Verdict::crash;
  CHECK_FALSE(grader::verdict_from_string("", read));
  CHECK_FALSE(grader::verdict_from_string("wrong answer", read));  // a label, not a name
  CHECK_FALSE(grader::verdict_from_string("PASSED", read));
  CHECK_FALSE(grader::verdict_from_string("passed ", read));
  CHECK(read == Verdict::crash);  // untouched on failure
}

TEST_CASE("only student failures are the student's fault") {
  CHECK_FALSE(grader::info(Verdict::passed).student_fault);
  CHECK_FALSE(grader::info(Verdict::not_run).student_fault);
  CHECK_FALSE(grader::info(Verdict::internal_error).student_fault);
  CHECK_FALSE(grader::info(Verdict::below_threshold).student_fault);
  for (Verdict v : {Verdict::wrong_answer, Verdict::build_error, Verdict::policy_refused, Verdict::missing_file,
                    Verdict::crash, Verdict::time_limit, Verdict::memory_limit, Verdict::output_limit,
                    Verdict::no_completion, Verdict::suspect, Verdict::not_this_step})
    CHECK(grader::info(v).student_fault);
}

TEST_CASE("a report's own status is never a verdict's name for an item that passed") {
  CHECK(grader::report_status(Verdict::passed) == grader::graded_status);
  CHECK(grader::report_status(Verdict::build_error) == "build_error");
  for (Verdict v : all_verdicts) CHECK(grader::to_string(v) != grader::graded_status);  // one word, one meaning
}

// docs/ta-guide.md's "The words" section is where a TA reads what each status means; a verdict it does not name is
// one a TA has to guess at.
TEST_CASE("docs/ta-guide.md explains every verdict name and the report's graded status") {
  std::ifstream in(TESTS_DIR "/../docs/ta-guide.md");
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto section = doc.find("## The words");
  REQUIRE(section != std::string::npos);
  const std::string words = doc.substr(section, doc.find("\n## ", section + 1) - section);
  CHECK(words.find("| `" + std::string(grader::graded_status) + "` |") != std::string::npos);
  for (Verdict v : all_verdicts) {
    CAPTURE(grader::to_string(v));
    CHECK(words.find("| `" + std::string(grader::to_string(v)) + "` |") != std::string::npos);
  }
}
