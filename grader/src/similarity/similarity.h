// similarity.h: the similarity stage of a class, beside batch/: reads the submissions (and past ones), compares every
// pair with the starter code left out (similarity/compare.h) and writes the report into --out
// (similarity/report.h). Run by `grader similarity` and by `grader batch --similarity`.
//
//   SimilarityOptions options{"submissions/", "grades/"};
//   SimilarityOutcome outcome = write_similarity_report(env, spec, options);   // grades/similarity.html, ...
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "batch/archive.h"
#include "core/environment.h"
#include "similarity/compare.h"
#include "spec/lab_spec.h"

namespace grader {

struct SimilarityOptions {
  std::filesystem::path submissions;
  std::filesystem::path out;
  std::filesystem::path past;     // earlier years' submissions; empty: none
  std::filesystem::path starter;  // the starter versions of the student files; empty: skeletons/<lab>
  double threshold = 0.5;         // pairs at or above it get a page and a row in similarity.html
  int min_run = default_min_run;
  UnpackLimits limits;
};

struct SimilarityOutcome {
  std::size_t submissions = 0, past = 0;
  std::size_t pairs = 0;    // pairs with anything in common
  std::size_t flagged = 0;  // at or above the threshold
  std::vector<std::string> not_read;  // "alice: archive refused: ..."
  std::filesystem::path index;        // similarity.html
};

// Throws MissingEngine when the engine is not installed, EngineError when it fails, std::runtime_error for an
// unreadable folder or a malformed similarity-reviewed.csv.
SimilarityOutcome write_similarity_report(const Environment& env, const LabSpec& spec, const SimilarityOptions& options);

}  // namespace grader
