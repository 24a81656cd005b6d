// test_catalog.cpp: the catalog of labs (grader/src/catalog/catalog.h), read from a temporary labs/ folder.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog/catalog.h"

namespace fs = std::filesystem;
using grader::Catalog;

namespace {

// labs/ with lab1-matvec, lab10-x and lab2-y (each a lab.toml; the catalog does not read it), plus
// folders that are not labs. Removed at scope exit.
class TempLabs {
 public:
  TempLabs() {
    std::string pattern = (fs::temp_directory_path() / "test_catalog-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    root_ = pattern;
    for (const char* lab : {"lab1-matvec", "lab10-x", "lab2-y"}) add(lab, true);
    add("lab3-notoml", false);  // no lab.toml: not a lab
    add("notes", true);         // not named lab<id>-<slug>
    add("lab4", true);          // no slug
    std::ofstream(root_ / "lab5-file") << "a file, not a folder\n";
  }
  ~TempLabs() {
    std::error_code ignored;
    fs::remove_all(root_, ignored);
  }
  TempLabs(const TempLabs&) = delete;
  TempLabs& operator=(const TempLabs&) = delete;
  const fs::path& path() const { return root_; }

 private:
  void add(const char* name, bool with_toml) {
    fs::create_directories(root_ / name);
    if (with_toml) std::ofstream(root_ / name / "lab.toml") << "# content irrelevant\n";
  }
  fs::path root_;
};

}  // namespace

TEST_CASE("entries are the lab folders, in lab-number order") {
  TempLabs labs;
  Catalog catalog(labs.path());
  const auto& entries = catalog.entries();
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].id == "lab1");
  CHECK(entries[0].slug == "matvec");
  CHECK(entries[0].dir == labs.path() / "lab1-matvec");
  CHECK(entries[1].id == "lab2");
  CHECK(entries[1].slug == "y");
  CHECK(entries[2].id == "lab10");  // after lab2, not between lab1 and lab2
  CHECK(entries[2].slug == "x");
}

TEST_CASE("find by id, slug, full name and number") {
  TempLabs labs;
  Catalog catalog(labs.path());
  for (const char* name : {"lab2", "y", "lab2-y", "2"}) {
    CAPTURE(name);
    const auto* entry = catalog.find(name);
    REQUIRE(entry != nullptr);
    CHECK(entry->id == "lab2");
  }
  REQUIRE(catalog.find("matvec") != nullptr);
  CHECK(catalog.find("matvec")->id == "lab1");
  REQUIRE(catalog.find("10") != nullptr);
  CHECK(catalog.find("10")->id == "lab10");
  REQUIRE(catalog.find("1") != nullptr);
  CHECK(catalog.find("1")->id == "lab1");  // not lab10
}

TEST_CASE("names that match nothing") {
  TempLabs labs;
  Catalog catalog(labs.path());
  CHECK(catalog.find("nope") == nullptr);
  CHECK(catalog.find("") == nullptr);
  CHECK(catalog.find("lab3") == nullptr);  // a folder without lab.toml
  CHECK(catalog.find("notoml") == nullptr);
  CHECK(catalog.find("notes") == nullptr);
  CHECK(catalog.find("lab9") == nullptr);
  CHECK(catalog.find("lab") == nullptr);
}

TEST_CASE("known_names lists every lab for error messages") {
  TempLabs labs;
  Catalog catalog(labs.path());
  CHECK(catalog.known_names() == "lab1 (matvec), lab2 (y), lab10 (x)");
}

TEST_CASE("a missing labs folder is an empty catalog") {
  Catalog catalog(fs::temp_directory_path() / "test_catalog-does-not-exist");
  CHECK(catalog.entries().empty());
  CHECK(catalog.find("lab1") == nullptr);
  CHECK(catalog.known_names() == "none");
}
