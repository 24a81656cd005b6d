// export.h: `grader export`: one CPU lab as an autograder for the platforms where courses already collect
// submissions. docs/ta-guide.md ("Gradescope", "PrairieLearn") is the TA's guide.
//
//   gradescope:   autograder.zip, Gradescope's layout: setup.sh and run_autograder at the top
//                 (grader/platforms/gradescope/), platform/ (common.sh, export.env) and course/
//   prairielearn: a folder to merge into the course repository:
//                   image/                     Dockerfile and build.sh: the grading image, to build and push
//                   serverFilesCourse/course-grader/grade.sh     the question's entrypoint
//                   questions/<lab>/           info.json (externalGradingOptions), question.html, tests/
//
// course/ is the student release of the lab (release/release.h: no reference/, no staff files, no build trees),
// with the lab's whole lab.toml and datasets put back where the platform keeps them from students: in the zip
// for Gradescope, which only staff see; in the question's tests/ for PrairieLearn, whose image may be public.
// The result is scanned for leaks of reference/ (release/leaks.h) before it is written; hidden cases stay hidden
// by each platform's own means (Gradescope's test visibility; PrairieLearn's results name no hidden case).
//
// GPU labs are refused (ExportError): neither platform offers GPUs.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/environment.h"
#include "spec/lab_spec.h"

namespace grader {

class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ExportOptions {
  int timeout_seconds = 600;  // the platform's limit for one grading; the grader gets 30 s less
  std::string image;          // PrairieLearn: the Docker image name info.json names
};

struct ExportSummary {
  std::uintmax_t bytes = 0;          // the zip's size (Gradescope)
  std::size_t files = 0;             // files written
  std::vector<std::string> steps;    // what the TA does next, one line each
};

// Throws ExportError for a GPU lab, naming `grader batch` and SLURM.
void refuse_gpu_lab(const LabSpec& spec);

// Writes `zip` (replacing it whole, or leaving it untouched on failure).
ExportSummary export_gradescope(const Environment& env, const LabSpec& spec, const ExportOptions& options,
                                const std::filesystem::path& zip);

// Writes the folder `out`, which must not exist or be empty, and must lie outside the course repository.
ExportSummary export_prairielearn(const Environment& env, const LabSpec& spec, const ExportOptions& options,
                                  const std::filesystem::path& out);

}  // namespace grader
