#include "batch/intake.h"

#include <sys/stat.h>

#include "build/stage.h"

namespace grader {

namespace fs = std::filesystem;

Verdict refused_archive_verdict() {
  // Looked up by name so the batch needs no change when report/verdict.h gains the verdict.
  Verdict verdict = Verdict::missing_file;
  verdict_from_string("bad_archive", verdict);
  return verdict;
}

fs::path find_student_files(const fs::path& folder, const std::vector<std::string>& student_files) {
  struct stat info {};
  for (const auto& name : student_files)
    if (::lstat((folder / name).c_str(), &info) == 0) return folder;
  std::error_code ec;
  fs::path only_subfolder;
  int children = 0;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || name == "__MACOSX") continue;
    // symlink_status: a link to a folder is not a wrapping folder (staging would refuse what it points at).
    if (!fs::is_directory(entry.symlink_status())) continue;
    ++children;
    only_subfolder = entry.path();
  }
  return children == 1 ? only_subfolder : folder;
}

namespace {

void note_case_mismatches(Intake& intake, const std::vector<std::string>& student_files) {
  struct stat info {};
  for (const auto& name : student_files) {
    if (::lstat((intake.folder / name).c_str(), &info) == 0) continue;
    if (const auto found = same_name_but_case(intake.folder, name)) intake.case_mismatches.push_back(*found + " for " + name);
  }
}

}  // namespace

Intake take_in(const Submission& submission, const std::vector<std::string>& student_files, const fs::path& work,
               const UnpackLimits& limits) {
  Intake intake;
  if (!submission.refusal.empty()) {
    intake.verdict = Verdict::missing_file;
    intake.refusal = submission.refusal;
    return intake;
  }
  if (!submission.files.empty()) {
    // A platform's flat download: the student's files, copied under the names the lab reads.
    for (const auto& [name, from] : submission.files) {
      std::error_code ec;
      fs::copy_file(from, work / name, fs::copy_options::overwrite_existing, ec);
      if (ec) {
        intake.verdict = Verdict::missing_file;
        intake.refusal = "cannot read " + from.filename().string() + ": " + ec.message();
        return intake;
      }
    }
    intake.folder = work;
    note_case_mismatches(intake, student_files);
    return intake;
  }
  if (submission.is_folder) {
    intake.folder = find_student_files(submission.path, student_files);
    note_case_mismatches(intake, student_files);
    return intake;
  }
  const UnpackResult unpacked = unpack_archive(submission.path, work, limits);
  if (!unpacked.ok) {
    intake.verdict = refused_archive_verdict();
    intake.refusal = "archive refused: " + unpacked.refusal;
    return intake;
  }
  intake.folder = find_student_files(work, student_files);
  note_case_mismatches(intake, student_files);
  return intake;
}

}  // namespace grader
