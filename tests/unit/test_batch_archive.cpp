// test_batch_archive.cpp: unpacking students' archives (grader/src/batch/archive.h). Every archive here is
// written by libarchive itself, entry by entry, so each hostile shape (an entry climbing out with "..", an
// absolute path, a symbolic or hard link, a device, a bomb) is exactly the one named.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "batch/archive.h"
#include "batch/intake.h"
#include "temp_dir.h"

using namespace grader;
namespace fs = std::filesystem;

namespace {

struct Entry {
  std::string name;
  mode_t type = AE_IFREG;
  std::string data;
  std::string link;          // symlink target, or hard link target when `hard`
  bool hard = false;
  std::size_t zeros = 0;     // this many zero bytes instead of `data` (a bomb compresses them to almost nothing)
};

void write_archive(const fs::path& path, bool zip, const std::vector<Entry>& entries) {
  struct archive* a = archive_write_new();
  if (zip) {
    archive_write_set_format_zip(a);
  } else {
    archive_write_set_format_pax_restricted(a);
    archive_write_add_filter_gzip(a);
  }
  REQUIRE(archive_write_open_filename(a, path.c_str()) == ARCHIVE_OK);
  for (const auto& e : entries) {
    struct archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.name.c_str());
    archive_entry_set_perm(entry, 0644);
    if (e.hard) {
      archive_entry_set_filetype(entry, AE_IFREG);
      archive_entry_set_hardlink(entry, e.link.c_str());
      archive_entry_set_size(entry, 0);
    } else {
      archive_entry_set_filetype(entry, e.type);
      if (e.type == AE_IFLNK) archive_entry_set_symlink(entry, e.link.c_str());
      const std::size_t size = e.type == AE_IFREG ? (e.zeros ? e.zeros : e.data.size()) : 0;
      archive_entry_set_size(entry, static_cast<la_int64_t>(size));
    }
    REQUIRE(archive_write_header(a, entry) == ARCHIVE_OK);
    if (e.type == AE_IFREG && !e.hard) {
      if (e.zeros) {
        const std::string block(1 << 16, '\0');
        for (std::size_t left = e.zeros; left > 0;) {
          const std::size_t n = std::min(left, block.size());
          archive_write_data(a, block.data(), n);
          left -= n;
        }
      } else {
        archive_write_data(a, e.data.data(), e.data.size());
      }
    }
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
}

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::size_t count_entries(const fs::path& folder) {
  std::size_t n = 0;
  for (auto it = fs::recursive_directory_iterator(folder); it != fs::recursive_directory_iterator(); ++it) ++n;
  return n;
}

// Unpacks `entries` as a tar.gz and as a zip (where the zip format can say it) and returns both results.
std::vector<UnpackResult> unpack_both(const std::vector<Entry>& entries, UnpackLimits limits = {}, bool zip_too = true) {
  std::vector<UnpackResult> results;
  for (bool zip : {false, true}) {
    if (zip && !zip_too) continue;
    TempDir dir("test-batch-archive");
    const fs::path archive = dir.path() / (zip ? "s.zip" : "s.tar.gz");
    write_archive(archive, zip, entries);
    fs::create_directory(dir.path() / "work");
    results.push_back(unpack_archive(archive, dir.path() / "work", limits));
    // Whatever happened, nothing appeared beside the work folder, and a refusal leaves the folder empty.
    std::size_t beside = 0;
    for (const auto& e : fs::directory_iterator(dir.path())) beside += e.path().filename() != "work" && e.path() != archive;
    CHECK(beside == 0);
    if (!results.back().ok) CHECK(count_entries(dir.path() / "work") == 0);
  }
  return results;
}

}  // namespace

TEST_CASE("archive names: the format and the student id") {
  std::string stem;
  CHECK(archive_format_of("alice.zip", stem) == ArchiveFormat::zip);
  CHECK(stem == "alice");
  CHECK(archive_format_of("bob.tar.gz", stem) == ArchiveFormat::tar_gz);
  CHECK(stem == "bob");
  CHECK(archive_format_of("carol.tgz", stem) == ArchiveFormat::tar_gz);
  CHECK(stem == "carol");
  CHECK(archive_format_of("dave.tar", stem) == ArchiveFormat::tar);
  CHECK(stem == "dave");
  CHECK(archive_format_of("erin.rar", stem) == ArchiveFormat::none);
  CHECK(stem == "erin.rar");
  CHECK(archive_format_of(".zip", stem) == ArchiveFormat::none);  // no name left
}

TEST_CASE("a well-formed archive unpacks with its folders") {
  TempDir dir("test-batch-archive");
  for (bool zip : {false, true}) {
    const fs::path archive = dir.path() / (zip ? "a.zip" : "a.tar.gz");
    write_archive(archive, zip, {{"lab1/", AE_IFDIR}, {"lab1/matvec.cpp", AE_IFREG, "int x;\n"}, {"./notes/readme.txt", AE_IFREG, "hi"}});
    const fs::path work = dir.path() / (zip ? "zip" : "tgz");
    fs::create_directory(work);
    const UnpackResult r = unpack_archive(archive, work, {});
    CHECK_MESSAGE(r.ok, r.refusal);
    CHECK(read(work / "lab1" / "matvec.cpp") == "int x;\n");
    CHECK(read(work / "notes" / "readme.txt") == "hi");
    CHECK(r.bytes == 9);
    // Permissions are the grader's, not the archive's.
    struct stat info {};
    REQUIRE(::stat((work / "lab1" / "matvec.cpp").c_str(), &info) == 0);
    CHECK((info.st_mode & 07777) == 0644);
    // The one wrapping folder is found.
    CHECK(find_student_files(work, {"matvec.cpp"}) == work);  // two folders: no single wrapper
  }
}

TEST_CASE("entries that climb out of the folder are refused, and nothing is written outside") {
  for (const auto& r : unpack_both({{"ok.cpp", AE_IFREG, "fine"}, {"../escaped.cpp", AE_IFREG, "evil"}})) {
    CHECK_FALSE(r.ok);
    CHECK(r.refusal == "entry '../escaped.cpp' climbs out of the folder");
  }
  for (const auto& r : unpack_both({{"a/../../escaped.cpp", AE_IFREG, "evil"}})) CHECK(r.refusal.find("climbs out") != std::string::npos);
}

TEST_CASE("absolute paths are refused") {
  // The zip writer strips a leading '/', so only tar can carry one.
  for (const auto& r : unpack_both({{"/tmp/evil.cpp", AE_IFREG, "evil"}}, {}, /*zip_too=*/false)) {
    CHECK_FALSE(r.ok);
    CHECK(r.refusal == "entry '/tmp/evil.cpp' is an absolute path");
  }
}

TEST_CASE("symbolic links, hard links and devices are refused") {
  for (const auto& r : unpack_both({{"matvec.cpp", AE_IFLNK, "", "/etc/passwd"}})) {
    CHECK_FALSE(r.ok);
    CHECK(r.refusal == "entry 'matvec.cpp' is a symbolic link");
  }
  for (const auto& r : unpack_both({{"a.cpp", AE_IFREG, "x"}, {"matvec.cpp", AE_IFREG, "", "a.cpp", true}}, {}, false)) {
    CHECK_FALSE(r.ok);
    CHECK(r.refusal == "entry 'matvec.cpp' is a hard link");
  }
  for (const auto& r : unpack_both({{"dev", AE_IFCHR}}, {}, false)) CHECK(r.refusal == "entry 'dev' is a character device");
  for (const auto& r : unpack_both({{"pipe", AE_IFIFO}}, {}, false)) CHECK(r.refusal == "entry 'pipe' is a named pipe");
}

TEST_CASE("archives past the size or entry limit are refused") {
  UnpackLimits small;
  small.max_bytes = 1 << 20;
  for (const auto& r : unpack_both({{"zeros.bin", AE_IFREG, "", "", false, 4 << 20}}, small)) {
    CHECK_FALSE(r.ok);
    CHECK(r.refusal.find("expands past 1 MiB") != std::string::npos);
  }
  // Many small files adding up past the limit.
  std::vector<Entry> many;
  for (int i = 0; i < 5; ++i) many.push_back({"part" + std::to_string(i), AE_IFREG, "", "", false, 300 << 10});
  for (const auto& r : unpack_both(many, small)) CHECK(r.refusal.find("expands past 1 MiB") != std::string::npos);

  UnpackLimits few;
  few.max_entries = 10;
  std::vector<Entry> files;
  for (int i = 0; i < 11; ++i) files.push_back({"f" + std::to_string(i), AE_IFREG, "x"});
  for (const auto& r : unpack_both(files, few)) CHECK(r.refusal == "it holds more than 10 entries");
  files.pop_back();
  for (const auto& r : unpack_both(files, few)) CHECK(r.ok);
}

TEST_CASE("a name that appears twice, or a file used as a folder, is refused") {
  for (const auto& r : unpack_both({{"matvec.cpp", AE_IFREG, "one"}, {"matvec.cpp", AE_IFREG, "two"}}, {}, false))
    CHECK(r.refusal == "entry 'matvec.cpp' appears twice");
  for (const auto& r : unpack_both({{"a", AE_IFREG, "file"}, {"a/b.cpp", AE_IFREG, "x"}}))
    CHECK(r.refusal.find("entry 'a/b.cpp' cannot be written: 'a' is a file, not a folder") == 0);
}

TEST_CASE("something that is not an archive is refused with the library's words") {
  TempDir dir("test-batch-archive");
  std::ofstream(dir.path() / "fake.zip") << "this is not a zip file";
  fs::create_directory(dir.path() / "work");
  const UnpackResult r = unpack_archive(dir.path() / "fake.zip", dir.path() / "work", {});
  CHECK_FALSE(r.ok);
  CHECK(r.refusal.rfind("it cannot be read: ", 0) == 0);
}

TEST_CASE("the lab's files are found at the top or inside one wrapping folder") {
  TempDir dir("test-batch-archive");
  const fs::path top = dir.path() / "top";
  fs::create_directories(top);
  std::ofstream(top / "matvec.cpp") << "x";
  CHECK(find_student_files(top, {"matvec.cpp"}) == top);

  const fs::path wrapped = dir.path() / "wrapped";
  fs::create_directories(wrapped / "alice-lab1");
  fs::create_directories(wrapped / "__MACOSX");
  fs::create_directories(wrapped / ".git");
  std::ofstream(wrapped / "README.txt") << "x";
  std::ofstream(wrapped / "alice-lab1" / "matvec.cpp") << "x";
  CHECK(find_student_files(wrapped, {"matvec.cpp"}) == wrapped / "alice-lab1");

  // Two folders: no guessing; staging names what is missing.
  const fs::path two = dir.path() / "two";
  fs::create_directories(two / "a");
  fs::create_directories(two / "b");
  CHECK(find_student_files(two, {"matvec.cpp"}) == two);

  // A link to a folder is not a wrapping folder.
  const fs::path linked = dir.path() / "linked";
  fs::create_directories(linked);
  fs::create_directory_symlink(top, linked / "elsewhere");
  CHECK(find_student_files(linked, {"matvec.cpp"}) == linked);
}

TEST_CASE("a refused archive's verdict is a name from the verdict table") {
  const Verdict v = refused_archive_verdict();
  CHECK((to_string(v) == "bad_archive" || v == Verdict::missing_file));
}
