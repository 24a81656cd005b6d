// test_class_outputs.cpp: what keeps one student from stopping a class (issue 19) and a gradebook from attacking its
// reader (issue 16): text made valid UTF-8 before every writer (core/utf8.h), file names that fit any legal id
// (batch/store.h), the folder lock, formula-like cells neutralised (batch/gradebook.h), Gradescope's fields, and
// this process's private work folders (core/scratch.h).
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "batch/gradebook.h"
#include "batch/store.h"
#include "core/scratch.h"
#include "core/utf8.h"
#include "report/writers.h"

using namespace grader;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string fffd = "\xef\xbf\xbd";

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "test-class-outputs-XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

StudentFiles files_for(const std::string& id) {
  StudentFiles files;
  files.text = "report of " + id + "\n";
  files.report = {{"schema", "grader-report/1"}, {"score", 1}, {"status", "passed"}, {"tests", json::array()},
                  {"build_log", "x.cpp:3: error: caf\xe9"}, {"batch", {{"student", id}}}};
  files.gradescope = json{{"score", 1}, {"output", id}};
  return files;
}

}  // namespace

TEST_CASE("valid_utf8 replaces each bad byte and keeps good text as it is") {
  struct Row {
    std::string in, out;
  };
  for (const Row& row : std::vector<Row>{
           {"plain ascii", "plain ascii"},
           {"jos\xc3\xa9", "jos\xc3\xa9"},                   // é in UTF-8: kept
           {"jos\xe9", "jos" + fffd},                        // é in Latin-1
           {"\xc0\xaf", fffd + fffd},                        // an overlong '/'
           {"\xed\xa0\x80", fffd + fffd + fffd},             // a surrogate
           {"\xf4\x90\x80\x80", fffd + fffd + fffd + fffd},  // past U+10FFFF
           {"cut \xe2\x82", "cut " + fffd + fffd},           // a sequence cut short
           {"\xf0\x9f\x98\x80 ok", "\xf0\x9f\x98\x80 ok"},   // 4 bytes, valid
       }) {
    CAPTURE(row.in);
    CHECK(valid_utf8(row.in) == row.out);
    CHECK(is_valid_utf8(valid_utf8(row.in)));
  }
}

TEST_CASE("json_text never throws on a student's bytes; render_text's output is UTF-8") {
  Report report;
  report.lab = "lab1";
  report.submission = "subs/jos\xe9";
  report.verdict = Verdict::build_error;
  report.build_log = "matvec.cpp:3:5: error: 'caf\xe9' was not declared";
  report.candidate_output = "r\xe9sum\xe9";
  CHECK_THROWS(to_json(report).dump());  // what stopped a class: nlohmann's type_error.316
  std::string text;
  CHECK_NOTHROW(text = json_text(to_json(report)));
  CHECK(json::parse(text)["build_log"] == "matvec.cpp:3:5: error: 'caf" + fffd + "' was not declared");
  CHECK_NOTHROW(json_text(to_gradescope(report)));
  CHECK(is_valid_utf8(render_text(report, false)));
}

TEST_CASE("Gradescope: plain-text output, after_published for after_due_date, never a null score") {
  Report report;
  report.score = std::nan("");
  report.wall_seconds = std::nan("");
  TestResult test;
  test.name = "t";
  test.score = std::nan("");
  test.max_score = 10;
  test.visibility = Visibility::after_due_date;
  test.details = "<b>not html</b>";
  report.tests.push_back(test);
  const json g = to_gradescope(report);
  CHECK(g["score"].is_number());
  CHECK(g["score"] == 0);
  CHECK(g["output_format"] == "text");
  CHECK(g["test_output_format"] == "text");
  CHECK(g["tests"][0]["score"].is_number());
  CHECK(g["tests"][0]["output_format"] == "text");
  CHECK(g["tests"][0]["visibility"] == "after_published");
  CHECK(json_text(g).find("null") == std::string::npos);
}

TEST_CASE("grades.csv neutralises text cells that start like a formula, and leaves numbers alone") {
  struct Row {
    std::string id, cell;
  };
  for (const Row& row : std::vector<Row>{
           {"=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""},
           {"+cmd", "\"'+cmd\""},
           {"-2+3", "\"'-2+3\""},
           {"@SUM(1+1)", "\"'@SUM(1+1)\""},
           {"\tx", "\"'\tx\""},
           {"\rx", "\"'\rx\""},
           {"alice", "alice"},
           {"a=b", "a=b"},
       }) {
    CAPTURE(row.id);
    CHECK(csv_text_field(row.id) == row.cell);
  }
  CHECK(format_points(-3) == "-3");  // a number column is never quoted
}

TEST_CASE("a student's files fit any legal id, and ids that are not UTF-8 are stored and found again") {
  TempDir dir;
  const ResultStore store(dir.path() / "out");
  const std::string longest(255, 'x');
  const std::string latin1 = "jos\xe9";
  const std::vector<std::string> ids = {longest, std::string(235, 'y'), latin1, "jos\xef", "gs", "gs.results"};
  for (const auto& id : ids) {
    CAPTURE(id);
    CHECK(file_stem(id).size() <= 128 + 1 + 16);
    CHECK(is_valid_utf8(file_stem(id)));
    CHECK_NOTHROW(store.save(id, files_for(id)));
    REQUIRE(store.result(id).has_value());
    CHECK((*store.result(id))["batch"]["student"] == valid_utf8(id));
  }
  CHECK(file_stem(latin1) != file_stem("jos\xef"));   // two ids that look alike keep two files
  CHECK(store.gradescope_path("gs") != store.report_path("gs.results"));  // once the same file
  CHECK(store.all_results().size() == ids.size());
  CHECK(file_stem("alice") == "alice");
}

TEST_CASE("the output folder's lock: a second exclusive holder is refused, shared holders coexist") {
  TempDir dir;
  {
    FolderLock first(dir.path(), FolderLock::Mode::exclusive);
    CHECK_THROWS_AS(FolderLock(dir.path(), FolderLock::Mode::exclusive), BusyFolder);
  }
  FolderLock again(dir.path(), FolderLock::Mode::exclusive);  // released when the first was destroyed
}

TEST_CASE("the output folder must be a folder that can be written") {
  TempDir dir;
  std::ofstream(dir.path() / "a-file") << "x";
  CHECK_THROWS_WITH(ResultStore(dir.path() / "a-file"), doctest::Contains("output folder"));
}

TEST_CASE("work folders: private to this process, a dead process's reaped, a live one's kept") {
  const fs::path& mine = scratch_root();
  struct stat info {};
  REQUIRE(::stat(mine.c_str(), &info) == 0);
  CHECK((info.st_mode & 0777) == 0711);  // others may pass through (a root grader's workers), not list
  CHECK(fs::temp_directory_path() == mine);
  TempDir parent;
  fs::create_directories(parent.path() / "999999999");          // not a pid that can exist: dead
  fs::create_directories(parent.path() / std::to_string(::getppid()));  // alive
  fs::create_directories(parent.path() / "not-a-pid");
  // A folder whose .alive lock is held is alive whatever its number says (another pid namespace); one whose lock
  // nobody holds is dead even if its number is a live process's.
  fs::create_directories(parent.path() / "999999998");
  const int held = ::open((parent.path() / "999999998" / ".alive").c_str(), O_RDWR | O_CREAT, 0600);
  REQUIRE(held >= 0);
  REQUIRE(::flock(held, LOCK_EX) == 0);
  fs::create_directories(parent.path() / "1");
  std::ofstream(parent.path() / "1" / ".alive") << "";
  reap_stale_scratch(parent.path());
  CHECK(fs::exists(parent.path() / "999999998"));
  CHECK_FALSE(fs::exists(parent.path() / "1"));
  ::close(held);
  CHECK_FALSE(fs::exists(parent.path() / "999999999"));
  CHECK(fs::exists(parent.path() / std::to_string(::getppid())));
  CHECK(fs::exists(parent.path() / "not-a-pid"));
  remove_scratch();
  CHECK_FALSE(fs::exists(mine));
}
