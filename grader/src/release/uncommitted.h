// uncommitted.h: what a release or an export would package that the course's git history does not hold.
//
// `grader release` and `grader export` copy the course as it is on disk. A walk's autograder.zip once shipped a lab1
// skeleton an instructor had solved to try it: both commands now refuse while skeletons/, labs/ or reference/ differ
// from the last commit, unless told --allow-uncommitted.
//
//   std::optional<std::vector<std::string>> files = uncommitted_course_files("/course");
//   // {" M skeletons/lab1-matvec/matvec.cpp", "?? labs/lab1-matvec/notes.txt"}; std::nullopt: not a git checkout
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace grader {

// The folders whose uncommitted changes a release or an export would ship.
const std::vector<std::string>& packaged_course_folders();  // skeletons, labs, reference

// Each file under packaged_course_folders() of the course at `root` that is changed, added, removed or untracked
// (and not ignored), as `git status --porcelain` lines it. std::nullopt when git cannot tell: `root` is no git
// checkout, or git is not installed.
std::optional<std::vector<std::string>> uncommitted_course_files(const std::filesystem::path& root);

// What `command` ("release", "export") must do about the course at `root`: "" to go on, else why it stops, naming
// at most ten of the files. With `allow` (--allow-uncommitted) it never stops, and `warning` says what it ships.
std::string uncommitted_refusal(const std::filesystem::path& root, const std::string& command, bool allow,
                                std::string& warning);

}  // namespace grader
