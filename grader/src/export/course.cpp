// course.cpp: the release, the hidden parts put back, the platform scripts and the leak scan (course.h).
#include "export/course.h"

#include <stdlib.h>

#include <algorithm>
#include <fstream>

#include "core/scratch.h"
#include "release/leaks.h"
#include "release/release.h"
#include "spec/mutants.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

// Every plain file of `from` into `to` but those `skip` names, replacing what is there; a link or a special file
// is refused, as the release refuses them (a link could reach reference/).
void copy_plain_tree(const fs::path& from, const fs::path& to, const std::vector<fs::path>& skip = {}) {
  fs::create_directories(to);
  for (const auto& entry : fs::directory_iterator(from)) {
    if (std::find(skip.begin(), skip.end(), entry.path()) != skip.end()) continue;
    const fs::path target = to / entry.path().filename();
    if (entry.is_symlink())
      throw ExportError(entry.path().string() + " is a symbolic link; the export copies plain files only");
    if (entry.is_directory()) copy_plain_tree(entry.path(), target);
    else if (entry.is_regular_file()) fs::copy_file(entry.path(), target, fs::copy_options::overwrite_existing);
    else throw ExportError(entry.path().string() + " is not a regular file");
  }
}

// export.env is sourced by bash: every value single-quoted, so it must hold no quote of its own.
std::string shell_word(const std::string& value) {
  if (value.find('\'') != std::string::npos || value.find('\n') != std::string::npos)
    throw ExportError("'" + value + "' cannot be written into export.env (a quote or a line break)");
  return "'" + value + "'";
}

std::string points_text(double points) {
  std::string text = std::to_string(points);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

}  // namespace

fs::path staging_folder(const Environment& env, const std::string& name) {
  const fs::path root = fs::weakly_canonical(env.root);
  fs::path parent = fs::weakly_canonical(scratch_root());
  const fs::path relative = parent.lexically_relative(root);
  if (!relative.empty() && *relative.begin() != "..") {
    std::string pattern = "/tmp/grader-export-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw ExportError("cannot make a folder under /tmp to stage the export in");
    return pattern;
  }
  const fs::path stage = parent / name;
  fs::remove_all(stage);
  return stage;
}

void write_released_course(const Environment& env, const LabSpec& spec, const fs::path& dir) {
  try {
    write_release(env, {spec}, dir);
  } catch (const ReleaseError& error) {
    throw ExportError(std::string("the lab's student release, which the export starts from, cannot be made: ") + error.what());
  }
}

void write_hidden_parts(const Environment& env, const LabSpec& spec, const fs::path& course) {
  // The mutants are near-solutions (the reference with one mistake), and the release already wrote the
  // handout without its staff blocks: neither comes back.
  copy_plain_tree(spec.dir, course / "labs" / spec.name(), {spec.dir / kMutantsFolder, spec.dir / "README.md"});
  const fs::path datasets = env.root / "datasets" / spec.name();
  if (fs::is_directory(datasets)) copy_plain_tree(datasets, course / "datasets" / spec.name());
}

void write_text_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw ExportError("cannot write " + path.string());
}

void copy_platform_file(const Environment& env, const fs::path& relative, const fs::path& to) {
  const fs::path from = env.root / "grader" / "platforms" / relative;
  if (!fs::is_regular_file(from))
    throw ExportError("the platform script " + from.string() + " is missing from the course repository");
  fs::create_directories(to.parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  fs::permissions(to, fs::status(from).permissions());
}

void write_platform_support(const Environment& env, const LabSpec& spec, const ExportOptions& options, const fs::path& dir) {
  copy_platform_file(env, "common.sh", dir / "common.sh");
  std::string files;
  for (const auto& file : spec.build.student_files) files += (files.empty() ? "" : " ") + file;
  // The grader's own budget ends before the platform's, so the scripts still write a result when it runs out.
  const int budget = std::max(30, options.timeout_seconds - 30);
  write_text_file(dir / "export.env",
                  "# Written by `grader export`: the lab the platform scripts grade (platform/common.sh).\n"
                  "LAB=" + shell_word(spec.id) + "\n"
                  "LAB_NAME=" + shell_word(spec.name()) + "\n"
                  "STUDENT_FILES=" + shell_word(files) + "\n"
                  "MAX_SCORE=" + shell_word(points_text(spec.max_score())) + "\n"
                  "TIME_BUDGET=" + shell_word(std::to_string(budget)) + "\n");
}

void check_no_reference_leaks(const Environment& env, const fs::path& dir) {
  const std::vector<Leak> leaks = find_leaks(dir, reference_evidence(env.root));
  if (leaks.empty()) return;
  std::string message = "the export would give reference/ away, so none was written:";
  for (std::size_t i = 0; i < leaks.size() && i < 20; ++i) message += "\n  " + to_string(leaks[i]);
  throw ExportError(message);
}

std::size_t count_files(const fs::path& dir) {
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file()) ++files;
  return files;
}

}  // namespace grader
