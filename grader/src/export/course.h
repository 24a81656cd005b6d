// course.h: the pieces both platform exports are made of (export/export.h says how they are laid out).
#pragma once

#include <filesystem>
#include <string>

#include "core/environment.h"
#include "export/export.h"
#include "spec/lab_spec.h"

namespace grader {

// A new, empty folder to stage an export in: this process's scratch folder, or a fresh one under /tmp when that
// lies inside the course repository (a TMPDIR in the build tree), where the release refuses to write.
std::filesystem::path staging_folder(const Environment& env, const std::string& name);

// Removes the staging folder however the export ends.
struct RemoveWhenDone {
  std::filesystem::path folder;
  ~RemoveWhenDone() {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
  }
};

// The student release of `spec` (release/release.h) into `dir`, which must not exist or be empty. ExportError
// when the release cannot be made.
void write_released_course(const Environment& env, const LabSpec& spec, const std::filesystem::path& dir);

// The lab's whole folder (lab.toml with its hidden cases) and its whole datasets folder, copied from the course
// repository into `course` (labs/<lab>/, datasets/<lab>/), over what is there. Plain files only.
void write_hidden_parts(const Environment& env, const LabSpec& spec, const std::filesystem::path& course);

// platform/common.sh and platform/export.env under `dir`: what the platform scripts read.
void write_platform_support(const Environment& env, const LabSpec& spec, const ExportOptions& options,
                            const std::filesystem::path& dir);

// Copies grader/platforms/<relative> to `to`, executable when the source is.
void copy_platform_file(const Environment& env, const std::filesystem::path& relative, const std::filesystem::path& to);

void write_text_file(const std::filesystem::path& path, const std::string& text);

// ExportError when anything under `dir` gives reference/ away (release/leaks.h).
void check_no_reference_leaks(const Environment& env, const std::filesystem::path& dir);

// Files under `dir`, counted.
std::size_t count_files(const std::filesystem::path& dir);

}  // namespace grader
