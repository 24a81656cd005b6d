// roster.h: the class, read from a submissions folder. Each entry is one student: a folder, or an archive
// (.zip, .tar.gz, .tgz, .tar) as course platforms export them; the student id is the entry's name without
// the archive extension. Names starting with '.' are not students (editor and platform droppings).
//
//   submissions/alice/matvec.cpp     -> alice  (folder)
//   submissions/bob.zip              -> bob    (zip)
//   submissions/carol.tar.gz         -> carol  (tar.gz)
//   submissions/dave.rar             -> dave.rar, refused: not a folder or an archive the grader reads
//
// Canvas and Gradescope bulk downloads are read as they come (batch/platform_export.h):
//   submissions/smithjohn_12345_6789012_matvec.cpp         -> smithjohn_12345 (Canvas: files grouped by user)
//   submissions/submission_123/ + submission_metadata.yml  -> the submitter's sid (Gradescope)
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batch/archive.h"

namespace grader {

struct Submission {
  std::string id;
  std::filesystem::path path;
  bool is_folder = false;
  ArchiveFormat archive = ArchiveFormat::none;  // set for archives
  std::string refusal;  // why this entry cannot be graded at all (duplicate id, unknown kind); empty when fine
  // A Canvas download: the student's files, by the name the lab reads, and where each is (path is the first).
  std::vector<std::pair<std::string, std::filesystem::path>> files;
  bool late = false;    // the platform marked it late (Canvas's "_late_")
};

// Every student in `submissions`, sorted by id. `skip` (the output folder, when it lies inside) is left out.
// Two entries with the same id ("alice/" and "alice.zip") become one student, refused with both names, so
// the TA sees the clash instead of one silently winning.
std::vector<Submission> read_roster(const std::filesystem::path& submissions,
                                    const std::optional<std::filesystem::path>& skip = std::nullopt);

// The students named in `ids`, in the roster's order; `unknown` gets the ids the roster does not hold.
std::vector<Submission> select_students(const std::vector<Submission>& roster, const std::vector<std::string>& ids,
                                        std::vector<std::string>& unknown);

}  // namespace grader
