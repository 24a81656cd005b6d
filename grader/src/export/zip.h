// zip.h: a folder written as a zip archive (libarchive), the way Gradescope takes an autograder: the folder's
// contents at the top of the archive, each file's Unix mode kept (run_autograder stays executable).
#pragma once

#include <filesystem>

namespace grader {

// Writes every file and folder under `dir`, in name order, into the new archive `zip`. Throws ExportError.
void write_zip(const std::filesystem::path& dir, const std::filesystem::path& zip);

}  // namespace grader
