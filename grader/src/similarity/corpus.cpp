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
SubmissionText read_submission(const LabSpec& spec, const Submission& entry, bool past, const fs::path& scratch,
                               std::size_t index, const UnpackLimits& limits) {
  SubmissionText submission{entry.id, past, {}, {}};
  const fs::path work = scratch / ("unpacked-" + std::to_string(index));
  const fs::path staged = scratch / ("staged-" + std::to_string(index));
  fs::create_directories(work);
  fs::create_directories(staged);
  const Intake intake = take_in(entry, spec.build.student_files, work, limits);
  if (intake.folder.empty()) {
    submission.problem = intake.refusal;
  } else {
    const StageResult stage = stage_submission(spec, intake.folder, staged);
    submission.problem = stage.details;
    for (const auto& source : stage.sources) submission.files.push_back({source.filename().string(), read_whole(source), {}, {}, {}});
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::remove_all(staged, ec);
  return submission;
}

std::vector<SubmissionText> read_folder(const LabSpec& spec, const fs::path& folder, bool past, const fs::path& skip,
                                        const fs::path& scratch, std::size_t& index, const UnpackLimits& limits) {
  std::vector<SubmissionText> read;
  const auto skip_folder = skip.empty() ? std::optional<fs::path>() : std::optional<fs::path>(skip);
  for (const auto& entry : read_roster(folder, skip_folder)) read.push_back(read_submission(spec, entry, past, scratch, index++, limits));
  return read;
}

}  // namespace

Corpus read_corpus(const LabSpec& spec, const fs::path& submissions, const fs::path& past, const fs::path& starter,
                   const fs::path& skip, const fs::path& scratch, const UnpackLimits& limits) {
  Corpus corpus;
  std::size_t index = 0;
  corpus.submissions = read_folder(spec, submissions, false, skip, scratch, index, limits);
  if (!past.empty()) {
    auto earlier = read_folder(spec, past, true, skip, scratch, index, limits);
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
