// test_batch_platform_export.cpp: Canvas's and Gradescope's bulk downloads read as a roster
// (grader/src/batch/platform_export.h), from small synthetic downloads written here.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "batch/platform_export.h"
#include "batch/roster.h"
#include "temp_dir.h"

using namespace grader;
namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

const Submission& find(const std::vector<Submission>& roster, const std::string& id) {
  for (const auto& s : roster)
    if (s.id == id) return s;
  FAIL("no student " << id);
  return roster.front();
}

}  // namespace

TEST_CASE("Canvas file names: the student, late, the student's own name, the resubmission") {
  auto plain = parse_canvas_name("smithjohn_12345_6789012_matvec.cpp");
  REQUIRE(plain);
  CHECK(plain->student == "smithjohn_12345");
  CHECK_FALSE(plain->late);
  CHECK(plain->name == "matvec.cpp");
  CHECK(plain->resubmission == 0);
  auto again = parse_canvas_name("smithjohn_late_12345_6789012_matvec-2.cpp");
  REQUIRE(again);
  CHECK(again->late);
  CHECK(again->student == "smithjohn_12345");
  CHECK(again->name == "matvec.cpp");
  CHECK(again->resubmission == 2);
  auto underscores = parse_canvas_name("doejane_7_8_my_notes.txt");
  REQUIRE(underscores);
  CHECK(underscores->name == "my_notes.txt");
  CHECK_FALSE(parse_canvas_name("alice.zip"));
  CHECK_FALSE(parse_canvas_name("smith_john_matvec.cpp"));  // no user and submission ids
  CHECK_FALSE(parse_canvas_name("smithjohn_12345_6789012_"));
}

TEST_CASE("a Canvas download: files grouped by student, the latest upload of each file kept") {
  TempDir dir("grader-platform");
  const fs::path subs = dir.path() / "subs";
  write(subs / "smithjohn_12345_6789012_matvec.cpp", "old");
  write(subs / "smithjohn_12345_6789012_matvec-1.cpp", "new");
  write(subs / "smithjohn_12345_6789012_NOTES.txt", "notes");
  write(subs / "doejane_late_777_888_matvec.cpp", "jane");
  write(subs / "leeann_31_32_lab1.zip", "PK");
  write(subs / "alice" / "matvec.cpp", "alice");  // an ordinary folder beside them is still a student
  const auto roster = read_roster(subs);
  REQUIRE(roster.size() == 4);
  const Submission& john = find(roster, "smithjohn_12345");
  REQUIRE(john.files.size() == 2);
  for (const auto& [name, from] : john.files)
    if (name == "matvec.cpp") CHECK(from.filename() == "smithjohn_12345_6789012_matvec-1.cpp");
  CHECK_FALSE(john.late);
  CHECK(find(roster, "doejane_777").late);
  const Submission& ann = find(roster, "leeann_31");
  CHECK(ann.files.empty());
  CHECK(ann.archive == ArchiveFormat::zip);  // a lone archive is unpacked like any other
  CHECK(find(roster, "alice").is_folder);
}

TEST_CASE("a Gradescope export: each submission folder is its submitter, the latest of a student's kept") {
  TempDir dir("grader-platform");
  const fs::path subs = dir.path() / "subs";
  write(subs / "submission_101" / "matvec.cpp", "a");
  write(subs / "submission_102" / "matvec.cpp", "b-old");
  write(subs / "submission_103" / "matvec.cpp", "b-new");
  write(subs / "submission_104" / "matvec.cpp", "c");
  write(subs / "submission_metadata.yml",
        "submission_101:\n"
        "  :submitters:\n"
        "  - :name: Ada Lovelace\n"
        "    :sid: '1815'\n"
        "    :email: ada@example.edu\n"
        "  :created_at: 2025-01-31 12:00:00.000000000 -08:00\n"
        "  :score: 10.0\n"
        "submission_102:\n"
        "  :submitters:\n"
        "  - :name: Bob Smith\n"
        "    :sid: '42'\n"
        "  :created_at: 2025-01-30 09:00:00.000000000 -08:00\n"
        "  :history:\n"
        "  - :created_at: 2025-02-01 00:00:00.000000000 -08:00\n"
        "submission_103:\n"
        "  :submitters:\n"
        "  - :name: Bob Smith\n"
        "    :sid: '42'\n"
        "  :created_at: 2025-01-31 18:00:00.000000000 -08:00\n"
        "submission_104:\n"
        "  :submitters:\n"
        "  - :name: Carol Jones\n"
        "    :email: carol@example.edu\n"
        "  - :name: Dan Group\n"
        "    :sid: '7'\n"
        "  :created_at: 2025-01-31 10:00:00.000000000 -08:00\n");
  const auto metadata = read_gradescope_metadata(subs / "submission_metadata.yml");
  REQUIRE(metadata.size() == 4);
  CHECK(metadata[1].created_at == "2025-01-30 09:00:00.000000000 -08:00");  // its own, not its history's
  const auto roster = read_roster(subs);
  REQUIRE(roster.size() == 3);  // the metadata file is no student
  CHECK(find(roster, "1815").path.filename() == "submission_101");
  CHECK(find(roster, "42").path.filename() == "submission_103");  // created last
  CHECK(find(roster, "carol@example.edu").is_folder);  // the first submitter, by e-mail without an sid
}
