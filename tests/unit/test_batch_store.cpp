// test_batch_store.cpp: a batch's output folder (grader/src/batch/store.h) and the class listing
// (grader/src/batch/roster.h): atomic writes, what counts as a finished student, the folder's settings,
// and how a submissions folder becomes a roster.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "batch/roster.h"
#include "batch/audit.h"
#include "batch/store.h"
#include "temp_dir.h"

using namespace grader;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

StudentFiles files_for(const std::string& id, double score) {
  StudentFiles files;
  files.text = "report of " + id + "\n";
  files.report = {{"schema", "grader-report/1"}, {"score", score}, {"status", "passed"}, {"tests", json::array()},
                  {"batch", {{"student", id}}}};
  return files;
}

}  // namespace

TEST_CASE("write_file_atomically replaces a file whole and leaves no temporary behind") {
  TempDir dir("test-batch-store");
  const fs::path file = dir.path() / "grades.csv";
  write_file_atomically(file, "old\n");
  write_file_atomically(file, "new\n");
  CHECK(read(file) == "new\n");
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir.path())) files += e.is_regular_file();
  CHECK(files == 1);
  CHECK_THROWS(write_file_atomically(dir.path() / "no-such-folder" / "x", "y"));
}

TEST_CASE("a student is finished exactly when a whole report of theirs is stored") {
  TempDir dir("test-batch-store");
  ResultStore store(dir.path() / "out");
  CHECK_FALSE(store.finished("alice"));
  store.save("alice", files_for("alice", 40));
  CHECK(store.finished("alice"));
  CHECK(read(store.text_path("alice")) == "report of alice\n");
  CHECK_FALSE(fs::exists(store.gradescope_path("alice")));

  StudentFiles with_gradescope = files_for("bob", 10);
  with_gradescope.gradescope = json{{"score", 10}};
  store.save("bob", with_gradescope);
  CHECK(json::parse(read(store.gradescope_path("bob")))["score"] == 10);

  // A torn file (a crash in the middle of a non-atomic write) is not finished: the student is graded again.
  std::ofstream(store.report_path("carol")) << "{\"schema\": \"grader-report/1\", \"sco";
  CHECK_FALSE(store.finished("carol"));
  // Nor is a report that names somebody else, or a JSON file that is not a report.
  std::ofstream(store.report_path("dave")) << files_for("erin", 1).report.dump();
  CHECK_FALSE(store.finished("dave"));

  const auto all = store.all_results();
  REQUIRE(all.size() == 2);  // alice and bob; bob.results.json, carol.json and dave.json are not results
  CHECK(all[0]["batch"]["student"] == "alice");
  CHECK(all[1]["batch"]["student"] == "bob");
}

TEST_CASE("the folder's settings are kept in .batch.json") {
  TempDir dir("test-batch-store");
  ResultStore store(dir.path());
  CHECK_FALSE(store.settings().has_value());
  store.save_settings({"lab1", 9007199254740993ULL, true});
  const auto settings = store.settings();
  REQUIRE(settings.has_value());
  CHECK(settings->lab == "lab1");
  CHECK(settings->seed == 9007199254740993ULL);  // 2^53 + 1: JSON integers, not doubles
  CHECK(settings->quick);
  // A student called "batch" does not collide with it.
  store.save("batch", files_for("batch", 1));
  CHECK(store.finished("batch"));
  CHECK(store.settings()->lab == "lab1");
}

TEST_CASE("the folder remembers its output formats, so every later run writes them all") {
  TempDir dir("test-batch-store");
  ResultStore store(dir.path());
  store.save_settings({"lab1", 1, true, {"gradescope"}});
  REQUIRE(store.settings().has_value());
  CHECK(store.settings()->writes("gradescope"));
  store.save_settings({"lab1", 1, true, {}});
  CHECK_FALSE(store.settings()->writes("gradescope"));
  // A folder from a grader that did not record its formats: its gradescope/ folder says it wrote them.
  fs::create_directories(dir.path() / "gradescope");
  CHECK(store.settings()->writes("gradescope"));
}

TEST_CASE("each regrade is appended to regrades.csv: when, the student, old and new score, the reason") {
  TempDir dir("test-batch-store");
  record_regrade(dir.path(), {"2025-02-03T09:12:44Z", "carol", 64.97, 65.49, 80, "passed", "passed", "appeal #12, timing"});
  record_regrade(dir.path(), {"2025-02-03T09:13:00Z", "=dave", 20, 40, 80, "wrong_answer", "passed", ""});
  const std::string log = read(regrade_log_path(dir.path()));
  CHECK(log.rfind("graded_at,by,student,old_score,new_score,max,old_status,new_status,reason\r\n", 0) == 0);
  CHECK(log.find(",carol,64.97,65.49,80,passed,passed,\"appeal #12, timing\"\r\n") != std::string::npos);
  CHECK(log.find("2025-02-03T09:12:44Z,") != std::string::npos);
  // A formula-like id is neutralised as in grades.csv; a missing reason says so.
  CHECK(log.find(",\"'=dave\",20,40,80,wrong_answer,passed,no reason given\r\n") != std::string::npos);
  CHECK(log.find("graded_at,by") == log.rfind("graded_at,by"));  // one header
}

TEST_CASE("stale temporaries of a killed run are removed, fresh ones are kept") {
  TempDir dir("test-batch-store");
  ResultStore store(dir.path());
  const fs::path stale = dir.path() / ".alice.json.tmp-host-123-0";
  const fs::path fresh = dir.path() / ".bob.json.tmp-host-456-0";
  std::ofstream(stale) << "{";
  std::ofstream(fresh) << "{";
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(1));
  store.remove_stale_temporaries();
  CHECK_FALSE(fs::exists(stale));
  CHECK(fs::exists(fresh));
}

TEST_CASE("a submissions folder becomes a roster, one student per entry") {
  TempDir dir("test-batch-store");
  const fs::path subs = dir.path() / "subs";
  fs::create_directories(subs / "alice");
  fs::create_directories(subs / "carol");
  fs::create_directories(subs / ".DS_Store_folder");
  std::ofstream(subs / "bob.zip") << "zip";
  std::ofstream(subs / "dave.tar.gz") << "tgz";
  std::ofstream(subs / "erin.rar") << "rar";
  std::ofstream(subs / "carol.tgz") << "tgz";  // a second submission for carol
  fs::create_symlink("/etc", subs / "frank.zip");
  fs::create_directories(subs / "out");         // the output folder, inside: skipped

  const auto roster = read_roster(subs, subs / "out");
  std::vector<std::string> ids;
  for (const auto& s : roster) ids.push_back(s.id);
  CHECK(ids == std::vector<std::string>{"alice", "bob", "carol", "dave", "erin.rar", "frank"});
  CHECK(roster[0].is_folder);
  CHECK(roster[0].refusal.empty());
  CHECK(roster[1].archive == ArchiveFormat::zip);
  CHECK(roster[2].refusal == "two submissions for 'carol' (carol, carol.tgz); keep one");
  CHECK(roster[3].archive == ArchiveFormat::tar_gz);
  CHECK(roster[4].refusal.find("not a folder or a .zip") != std::string::npos);
  CHECK(roster[5].refusal.find("symbolic link") != std::string::npos);

  std::vector<std::string> unknown;
  const auto chosen = select_students(roster, {"dave", "alice", "zoe"}, unknown);
  REQUIRE(chosen.size() == 2);
  CHECK(chosen[0].id == "alice");  // the roster's order
  CHECK(chosen[1].id == "dave");
  CHECK(unknown == std::vector<std::string>{"zoe"});

  CHECK_THROWS(read_roster(dir.path() / "missing"));
}
