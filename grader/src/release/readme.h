// readme.h: the student release's README.md. The course README speaks to students, TAs and instructors; the
// parts for the staff are marked, and the release cuts them:
//
//   <!-- staff -->
//   ## Instructors
//   ...
//   <!-- /staff -->
//
// What is left must not send a student to a guide the release removes, nor tell them to run a staff command:
// the release fails, naming the line, when it does (a marker forgotten after an edit).
#pragma once

#include <set>
#include <string>
#include <string_view>

namespace grader {

// `readme` without its staff blocks. `removed_docs` are file names under docs/ the release leaves out. Throws
// ReleaseError (release/strip.h) for an unclosed marker, or for a line left that names a removed doc or
// `grader selftest`, `grader batch`, `grader new-lab`, `grader release`, or the staff's set-up (`bash grader/setup.sh`
// without --student, `ctest`).
// `file` names the text in messages ("labs/lab9-vector-ops/README.md:3: ..."); lab handouts are cut the same way.
std::string student_readme(std::string_view readme, const std::set<std::string>& removed_docs,
                           const std::string& file = "README.md");

}  // namespace grader
