#include "batch/platform_export.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <tuple>

namespace grader {

namespace fs = std::filesystem;

namespace {

bool all_digits(const std::string& text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "'12345'" -> 12345, "\"x\"" -> x, "  John Smith " -> John Smith.
std::string yaml_scalar(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  text.erase(0, std::min(text.size(), text.find_first_not_of(" \t")));
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
    text = text.substr(1, text.size() - 2);
  return text;
}

std::size_t indent_of(const std::string& line) {
  const std::size_t first = line.find_first_not_of(' ');
  return first == std::string::npos ? line.size() : first;
}

}  // namespace

std::optional<CanvasFile> parse_canvas_name(const std::string& file_name) {
  // <lastfirst>[_late]_<user id>_<submission id>_<name>: the name may hold '_' itself, the others do not.
  std::size_t start = 0;
  auto next = [&](std::string& into) {
    const std::size_t cut = file_name.find('_', start);
    if (cut == std::string::npos) return false;
    into = file_name.substr(start, cut - start);
    start = cut + 1;
    return true;
  };
  CanvasFile file;
  std::string who, user, submission;
  if (!next(who) || !next(user)) return std::nullopt;
  if (user == "late" || user == "LATE") {
    file.late = true;
    if (!next(user)) return std::nullopt;
  }
  if (!next(submission)) return std::nullopt;
  const std::string rest = file_name.substr(start);
  if (who.empty() || !std::all_of(who.begin(), who.end(), [](unsigned char c) { return std::isalnum(c) || c == '-'; }))
    return std::nullopt;
  if (!all_digits(user) || !all_digits(submission) || rest.empty() || rest[0] == '.') return std::nullopt;
  file.student = who + "_" + user;
  file.submission = std::stoull(submission.substr(0, 18));
  // matvec-1.cpp -> matvec.cpp, 1; README-2 -> README, 2.
  const std::size_t dot = rest.rfind('.');
  const std::string stem = rest.substr(0, dot == 0 ? std::string::npos : dot);
  const std::string extension = dot == 0 || dot == std::string::npos ? "" : rest.substr(dot);
  const std::size_t dash = stem.rfind('-');
  if (dash != std::string::npos && dash > 0 && all_digits(stem.substr(dash + 1)) && stem.size() - dash <= 4) {
    file.resubmission = std::stoi(stem.substr(dash + 1));
    file.name = stem.substr(0, dash) + extension;
  } else {
    file.name = rest;
  }
  return file;
}

std::vector<GradescopeSubmission> read_gradescope_metadata(const fs::path& yml) {
  std::vector<GradescopeSubmission> submissions;
  std::ifstream in(yml);
  std::string email, name;
  auto finish = [&] {
    if (submissions.empty()) return;
    auto& last = submissions.back();
    if (last.student.empty()) last.student = !email.empty() ? email : name;
    email.clear();
    name.clear();
  };
  bool in_submitters = false;
  int submitter = 0;  // which submitter's keys these are: only the first's count
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t indent = indent_of(line);
    if (indent == line.size() || line[indent] == '#') continue;
    if (indent == 0) {  // "submission_123:" opens the next folder
      finish();
      in_submitters = false;
      submitter = 0;
      if (line.back() == ':') submissions.push_back({line.substr(0, line.size() - 1), "", ""});
      continue;
    }
    if (submissions.empty()) continue;
    std::string content = line.substr(indent);
    if (content.rfind("- ", 0) == 0) {  // a list item's first key
      content = content.substr(2);
      if (in_submitters) ++submitter;
    }
    const std::size_t colon = content.find(": ");
    const std::string key = colon == std::string::npos ? yaml_scalar(content) : content.substr(0, colon + 1);  // ":sid:"
    const std::string value = colon == std::string::npos ? "" : yaml_scalar(content.substr(colon + 2));
    // The submission's own keys sit at its first indentation; :history: and other nested lists are deeper.
    if (indent == 2 && line[indent] != '-') {
      in_submitters = key == ":submitters:";
      if (key == ":created_at:") submissions.back().created_at = value;
      continue;
    }
    if (!in_submitters || submitter != 1 || !submissions.back().student.empty()) continue;
    // The first submitter names the submission: their sid, else their e-mail, else their name.
    if (key == ":sid:" && !value.empty()) submissions.back().student = value;
    else if (key == ":email:" && email.empty()) email = value;
    else if (key == ":name:" && name.empty()) name = value;
  }
  finish();
  return submissions;
}

std::vector<Submission> take_platform_exports(const fs::path& submissions, std::vector<fs::path>& entries) {
  std::vector<Submission> taken;
  std::vector<fs::path> left;

  // Gradescope: each submission_<n>/ named in the metadata is its student; the latest of a student's folders wins.
  std::map<std::string, GradescopeSubmission> gradescope;
  const fs::path metadata = submissions / "submission_metadata.yml";
  if (fs::is_regular_file(metadata))
    for (auto& s : read_gradescope_metadata(metadata))
      if (!s.student.empty()) gradescope[s.folder] = s;
  std::map<std::string, std::pair<std::string, fs::path>> gradescope_latest;  // student -> (created_at, folder)

  // Canvas: files of one user id; of each name, the latest upload.
  struct Upload {
    CanvasFile file;
    fs::path path;
  };
  std::map<std::string, std::map<std::string, Upload>> canvas;  // student -> name -> upload

  for (const auto& path : entries) {
    const std::string name = path.filename().string();
    std::error_code ec;
    const fs::file_status status = fs::symlink_status(path, ec);
    if (name == "submission_metadata.yml" && fs::is_regular_file(status) && !gradescope.empty()) continue;
    if (fs::is_directory(status) && gradescope.count(name)) {
      const GradescopeSubmission& s = gradescope[name];
      auto& latest = gradescope_latest[s.student];
      if (latest.second.empty() || s.created_at > latest.first) latest = {s.created_at, path};
      continue;
    }
    if (fs::is_regular_file(status)) {
      if (const auto file = parse_canvas_name(name)) {
        Upload& kept = canvas[file->student][file->name];
        if (kept.path.empty() || std::tie(file->resubmission, file->submission) > std::tie(kept.file.resubmission, kept.file.submission))
          kept = {*file, path};
        continue;
      }
    }
    left.push_back(path);
  }

  for (const auto& [student, latest] : gradescope_latest) {
    Submission s;
    s.id = student;
    s.path = latest.second;
    s.is_folder = true;
    taken.push_back(std::move(s));
  }
  for (const auto& [student, uploads] : canvas) {
    Submission s;
    s.id = student;
    for (const auto& [name, upload] : uploads) {
      s.late = s.late || upload.file.late;
      s.files.push_back({name, upload.path});
    }
    std::string ignored;
    // A student whose one upload is an archive is that archive, unpacked as any other.
    if (s.files.size() == 1 && archive_format_of(s.files.front().first, ignored) != ArchiveFormat::none) {
      s.path = s.files.front().second;
      s.archive = archive_format_of(s.files.front().first, ignored);
      s.files.clear();
    } else {
      s.path = s.files.front().second;  // where the TA finds the student's files: beside this one
    }
    taken.push_back(std::move(s));
  }
  entries = std::move(left);
  return taken;
}

}  // namespace grader
