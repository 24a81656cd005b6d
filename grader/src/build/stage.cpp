#include "build/stage.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace grader {

std::optional<std::string> same_name_but_case(const std::filesystem::path& submission, const std::string& name) {
  const std::filesystem::path wanted = submission / name;
  auto lower = [](std::string text) {
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  const std::string target = lower(wanted.filename().string());
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(wanted.parent_path(), ec)) {
    const std::string found = entry.path().filename().string();
    if (found != wanted.filename().string() && lower(found) == target) return found;
  }
  return std::nullopt;
}

StageResult stage_submission(const LabSpec& spec, const std::filesystem::path& submission,
                             const std::filesystem::path& into) {
  StageResult result;
  std::vector<std::string> problems;
  for (const auto& name : spec.build.student_files) {
    const auto path = submission / name;
    struct stat info {};
    // lstat, not stat: a link could point at another student's work or at the reference.
    if (::lstat(path.c_str(), &info) != 0) {
      // A folder the grader may not enter is not a student who forgot the file.
      const int error = errno;
      if (error != ENOENT && error != ENOTDIR) {
        problems.push_back(name + " cannot be read: " + std::strerror(error));
      } else if (const auto found = same_name_but_case(submission, name)) {
        problems.push_back("found " + *found + ": names are case-sensitive; rename it to " + name);
      } else {
        problems.push_back(name + " is missing");
      }
      continue;
    }
    if (S_ISLNK(info.st_mode)) {
      problems.push_back(name + " is a symbolic link; submit the file itself");
      continue;
    }
    if (!S_ISREG(info.st_mode)) {
      problems.push_back(name + " is not a regular file");
      continue;
    }
    if (static_cast<std::size_t>(info.st_size) > spec.build.max_file_bytes) {
      problems.push_back(name + " is " + std::to_string(info.st_size / 1024) + " KiB, over the lab's limit of " +
                         std::to_string(spec.build.max_file_bytes / 1024) + " KiB");
      continue;
    }
    std::error_code ec;
    std::filesystem::copy_file(path, into / name, std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) {
      problems.push_back(name + " cannot be read: " + ec.message());
      continue;
    }
    result.sources.push_back(into / name);
  }
  if (!problems.empty()) {
    result.verdict = Verdict::missing_file;
    for (const auto& p : problems) result.details += (result.details.empty() ? "" : "; ") + p;
  }
  return result;
}

}  // namespace grader
