#include "batch/roster.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "batch/platform_export.h"
#include "core/utf8.h"

namespace grader {

namespace fs = std::filesystem;

std::vector<Submission> read_roster(const fs::path& submissions, const std::optional<fs::path>& skip) {
  std::error_code ec;
  if (!fs::is_directory(submissions, ec))
    throw std::runtime_error("the submissions folder " + submissions.string() + " is not a folder");
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(submissions)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    if (skip && fs::equivalent(entry.path(), *skip, ec)) continue;
    entries.push_back(entry.path());
  }
  std::vector<Submission> roster = take_platform_exports(submissions, entries);
  for (const auto& path : entries) {
    const std::string name = path.filename().string();
    Submission s;
    s.path = path;
    // symlink_status: a link in the submissions folder is not followed to somewhere else on the machine.
    const fs::file_status status = fs::symlink_status(path, ec);
    if (fs::is_directory(status)) {
      s.id = name;
      s.is_folder = true;
    } else {
      s.archive = archive_format_of(name, s.id);
      if (fs::is_symlink(status)) {
        s.refusal = "the submission '" + name + "' is a symbolic link; the grader does not follow it";
      } else if (!fs::is_regular_file(status)) {
        s.refusal = "the submission '" + name + "' is not a folder or a file";
      } else if (s.archive == ArchiveFormat::none) {
        s.refusal = "the submission '" + name + "' is not a folder or a .zip, .tar.gz, .tgz or .tar archive";
      }
    }
    roster.push_back(std::move(s));
  }
  std::sort(roster.begin(), roster.end(), [](const Submission& a, const Submission& b) {
    return a.id != b.id ? a.id < b.id : a.path < b.path;
  });
  std::map<std::string, std::vector<std::string>> by_id;
  for (const auto& s : roster) by_id[s.id].push_back(s.path.filename().string());
  for (auto& s : roster) {
    const auto& names = by_id[s.id];
    if (names.size() < 2) continue;
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    s.refusal = "two submissions for '" + s.id + "' (" + list + "); keep one";
  }
  // One entry per id from here on: the gradebook has one row per student.
  roster.erase(std::unique(roster.begin(), roster.end(), [](const Submission& a, const Submission& b) { return a.id == b.id; }),
               roster.end());
  return roster;
}

std::vector<Submission> select_students(const std::vector<Submission>& roster, const std::vector<std::string>& ids,
                                        std::vector<std::string>& unknown) {
  const std::set<std::string> wanted(ids.begin(), ids.end());
  std::vector<Submission> selected;
  std::set<std::string> found;
  for (const auto& s : roster) {
    // A SLURM task roster is JSON, where an id that is not UTF-8 was written with U+FFFD (core/utf8.h).
    if (wanted.count(s.id) || wanted.count(valid_utf8(s.id))) {
      selected.push_back(s);
      found.insert(s.id);
      found.insert(valid_utf8(s.id));
    }
  }
  for (const auto& id : ids)
    if (!found.count(id) && !found.count(valid_utf8(id)) && std::find(unknown.begin(), unknown.end(), id) == unknown.end()) unknown.push_back(id);
  return selected;
}

}  // namespace grader
