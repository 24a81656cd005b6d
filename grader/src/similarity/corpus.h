// corpus.h: what the similarity stage compares: each submission's student files (the lab's build.student_files,
// read as `grader batch` reads a class: folders and archives through batch/intake.h, each file through
// build/stage.h's checks), earlier years' submissions, and the starter code (the lab's skeleton and given headers)
// that no one is credited or blamed for.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/archive.h"
#include "core/environment.h"
#include "spec/lab_spec.h"

namespace grader {

struct SourceFile {
  std::string name;   // as the lab names it: "matvec.cpp"
  std::string text;   // as submitted
  std::string engine_name;  // the copy the engine reads, relative to the work folder
  std::vector<bool> starter;  // per line (index 0 is line 1): the line repeats the starter code
  std::vector<int> tokens;    // per line: the engine's tokens on it, once starter lines are blanked
  int own_tokens() const;
};

struct SubmissionText {
  std::string id;
  bool past = false;        // from --past: compared with this class, never with other past submissions
  std::string problem;      // why some or all of its files were not read ("matvec.cpp is missing"); empty: none
  std::vector<SourceFile> files;
};

struct Corpus {
  std::vector<SubmissionText> submissions;  // the class (sorted by id), then past submissions
  std::vector<SourceFile> starter;          // the skeleton's student files and the lab's headers
};

// Reads the class in `submissions` and, when not empty, the past submissions in `past`; `starter` is the folder
// holding the starter versions of the student files (default: skeletons/<lab>). `skip` is left out of the roster
// (the output folder, when it lies inside). Archives are unpacked under `scratch`.
Corpus read_corpus(const LabSpec& spec, const std::filesystem::path& submissions, const std::filesystem::path& past,
                   const std::filesystem::path& starter, const std::filesystem::path& skip,
                   const std::filesystem::path& scratch, const UnpackLimits& limits);

}  // namespace grader
