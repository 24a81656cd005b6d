#include "similarity/corpus.h"

#include <fstream>
#include <numeric>
#include <sstream>

#include "batch/intake.h"
#include "batch/roster.h"
#include "build/stage.h"

namespace grader {

namespace fs = std::filesystem;

int SourceFile::own_tokens() const { return std::accumulate(tokens.begin(), tokens.end(), 0); }

namespace {

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One roster entry's student files, read through the batch's intake and the pipeline's staging checks (no links,
// nothing over the lab's size limit). A file that is absent is named in `problem`; the others are still compared.
// `staged` is one folder for the whole class: each student's files overwrite the last one's, and only the files
// staged now are read (a class of 300 creates a handful of files, not thousands, in a busy /tmp).
SubmissionText read_submission(const LabSpec& spec, const Submission& entry, bool past, const fs::path& scratch,
                               const fs::path& staged, const UnpackLimits& limits) {
  SubmissionText submission{entry.id, past, {}, {}};
  const fs::path work = scratch / "unpacked";  // an archive's own empty folder; a folder is read where it is
  if (!entry.is_folder) fs::create_directories(work);
  const Intake intake = take_in(entry, spec.build.student_files, work, limits);
  if (intake.folder.empty()) {
    submission.problem = intake.refusal;
  } else {
    const StageResult stage = stage_submission(spec, intake.folder, staged);
    submission.problem = stage.details;
    for (const auto& source : stage.sources) submission.files.push_back({source.filename().string(), read_whole(source), {}, {}, {}});
  }
  std::error_code ec;
  if (!entry.is_folder) fs::remove_all(work, ec);
  return submission;
}

std::vector<SubmissionText> read_folder(const LabSpec& spec, const fs::path& folder, bool past, const fs::path& skip,
                                        const fs::path& scratch, const UnpackLimits& limits) {
  std::vector<SubmissionText> read;
  const auto skip_folder = skip.empty() ? std::optional<fs::path>() : std::optional<fs::path>(skip);
  const fs::path staged = scratch / "staged";
  fs::create_directories(staged);
  for (const auto& entry : read_roster(folder, skip_folder)) read.push_back(read_submission(spec, entry, past, scratch, staged, limits));
  return read;
}

}  // namespace

Corpus read_corpus(const LabSpec& spec, const fs::path& submissions, const fs::path& past, const fs::path& starter,
                   const fs::path& skip, const fs::path& scratch, const UnpackLimits& limits) {
  Corpus corpus;
  corpus.submissions = read_folder(spec, submissions, false, skip, scratch, limits);
  if (!past.empty()) {
    auto earlier = read_folder(spec, past, true, skip, scratch, limits);
    for (auto& submission : earlier) corpus.submissions.push_back(std::move(submission));
  }
  // The starter code: what the skeleton gives in each student file, and every header the lab hands out.
  for (const auto& name : spec.build.student_files)
    if (fs::is_regular_file(starter / name)) corpus.starter.push_back({name, read_whole(starter / name), {}, {}, {}});
  for (const auto& name : spec.build.headers)
    if (fs::is_regular_file(spec.dir / name)) corpus.starter.push_back({name, read_whole(spec.dir / name), {}, {}, {}});
  return corpus;
}

}  // namespace grader
