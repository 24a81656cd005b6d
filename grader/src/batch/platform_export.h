// platform_export.h: the bulk downloads of course platforms, read as a roster (batch/roster.h).
//
// Canvas ("Download Submissions") is flat: every file of every student in one folder, named
//   <lastfirst>[_late]_<user id>_<submission id>_<the student's file name>
//   smithjohn_12345_6789012_matvec.cpp        smithjohn_late_12345_6789012_matvec-1.cpp
// A file the student uploaded again gets "-1", "-2"... before its extension. The files of one user id are one
// student, "smithjohn_12345"; of each file name the highest suffix is kept (the latest upload) and given back its
// own name (matvec-1.cpp is graded as matvec.cpp); "_late_" is kept in the report. A student whose only file is an
// archive is that archive.
//
// Gradescope ("Export Submissions") has a folder per submission, submission_<n>/, and submission_metadata.yml:
//   submission_123:
//     :submitters:
//     - :name: John Smith
//       :sid: '12345'
//     :created_at: 2025-01-31 12:00:00.000000000 -08:00
// Each folder is the student with that :sid: (else :email:, else :name:; the first submitter of a group); when two
// folders are one student's, the one created last is graded.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "batch/roster.h"

namespace grader {

// One Canvas file name, split: nothing when the name is not Canvas's.
struct CanvasFile {
  std::string student;        // "smithjohn_12345"
  bool late = false;
  std::string name;           // the student's own file name, resubmission suffix removed: "matvec.cpp"
  int resubmission = 0;       // the "-1" of matvec-1.cpp; 0 for the first upload
  unsigned long long submission = 0;
};
std::optional<CanvasFile> parse_canvas_name(const std::string& file_name);

// submission_metadata.yml's folders: folder name -> the student and when it was made.
struct GradescopeSubmission {
  std::string folder;      // "submission_123"
  std::string student;     // the sid, else the e-mail, else the name
  std::string created_at;  // as written; ISO-like text, compared as text
};
std::vector<GradescopeSubmission> read_gradescope_metadata(const std::filesystem::path& yml);

// Turns the Canvas files and Gradescope folders among `entries` into one Submission per student and removes them
// from `entries`; what is left is read as usual (a folder or an archive per student).
std::vector<Submission> take_platform_exports(const std::filesystem::path& submissions,
                                              std::vector<std::filesystem::path>& entries);

}  // namespace grader
