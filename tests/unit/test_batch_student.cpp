// test_batch_student.cpp: one student of a batch (grader/src/batch/student.h) whatever happens: a refused
// submission and a failure inside the grader both become a whole report (every item, zero points, the reason)
// instead of an exception that would stop the class. Nothing here compiles student code.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "batch/student.h"
#include "report/writers.h"
#include "spec/lab_spec.h"
#include "temp_dir.h"

using namespace grader;
namespace fs = std::filesystem;

namespace {

const LabSpec& lab1() {
  static const LabSpec spec = load_lab_spec(std::string(TESTS_DIR) + "/../labs/lab1-matvec");
  return spec;
}

Environment environment(const fs::path& cache) {
  Environment env;
  env.root = fs::path(TESTS_DIR) / "..";
  env.cache = cache;
  env.cxx = "c++";
  return env;
}

StudentGrading grading(const fs::path& scratch) {
  StudentGrading g;
  g.batch_seed = 42;
  g.quick = true;
  g.scratch = scratch;
  return g;
}

}  // namespace

TEST_CASE("a submission the roster refused is a report with every item, zero points and the reason") {
  TempDir dir("test-batch-student");
  Submission s;
  s.id = "alice";
  s.path = dir.path() / "alice.rar";
  s.refusal = "the submission 'alice.rar' is not a folder or a .zip, .tar.gz, .tgz or .tar archive";
  const GradedStudent graded = grade_student(environment(dir.path() / "cache"), lab1(), s, grading(dir.path() / "scratch"));
  const Report& r = graded.report;
  CHECK(r.verdict == Verdict::missing_file);
  CHECK(r.verdict_details == s.refusal);
  CHECK(r.score == 0);
  CHECK(r.max_score == lab1().max_score());
  CHECK(r.seed == student_seed(42, "alice"));
  REQUIRE(r.tests.size() == lab1().correctness.size() + lab1().performance.size());
  for (const auto& t : r.tests) CHECK(t.verdict == Verdict::missing_file);
  CHECK(graded.batch["student"] == "alice");
  CHECK(graded.batch["refused"] == true);
  CHECK(graded.batch["intake"] == "other");
  CHECK(graded.batch["batch_seed"] == 42);
}

TEST_CASE("a refused archive is reported with the archive's problem, and its work folder is removed") {
  TempDir dir("test-batch-student");
  Submission s;
  s.id = "bob";
  s.path = dir.path() / "bob.zip";
  s.archive = ArchiveFormat::zip;
  std::ofstream(s.path) << "not a zip";
  const GradedStudent graded = grade_student(environment(dir.path() / "cache"), lab1(), s, grading(dir.path() / "scratch"));
  CHECK(graded.report.verdict_details.rfind("archive refused: it cannot be read: ", 0) == 0);
  CHECK((to_string(graded.report.verdict) == "bad_archive" || graded.report.verdict == Verdict::missing_file));
  CHECK(graded.batch["intake"] == "zip");
  CHECK(fs::is_empty(dir.path() / "scratch"));
}

TEST_CASE("an exception inside the grader becomes that student's internal_error, not the batch's end") {
  TempDir dir("test-batch-student");
  fs::create_directories(dir.path() / "carol");
  std::ofstream(dir.path() / "carol" / "matvec.cpp") << "// a submission\n";
  std::ofstream(dir.path() / "not-a-folder") << "the cache cannot be created under a file";
  Submission s;
  s.id = "carol";
  s.path = dir.path() / "carol";
  s.is_folder = true;
  // The lab's build cache lies under a regular file: creating it throws from inside grade_submission.
  const GradedStudent graded =
      grade_student(environment(dir.path() / "not-a-folder" / "cache"), lab1(), s, grading(dir.path() / "scratch"));
  const Report& r = graded.report;
  CHECK(r.verdict == Verdict::internal_error);
  CHECK(r.verdict_details.find("the grader failed, not the submission") != std::string::npos);
  CHECK(r.lab_name == "lab1-matvec");
  CHECK(r.max_score == lab1().max_score());
  CHECK(r.seed == student_seed(42, "carol"));
  CHECK(graded.batch["refused"] == false);
  // It still renders in every format.
  CHECK(render_text(r, false).find("internal error") != std::string::npos);
  CHECK(to_json(r)["status"] == "internal_error");
}
