// atomic_file.h: writing a file so that a reader sees the old one or the whole new one, never a part; used by the batch
// store, the calibration, `grader lab1 -o FILE`.
#pragma once

#include <filesystem>
#include <string>

namespace grader {

// Writes `content` to `path` (temporary name, fsync, rename, fsync of the folder). Throws std::system_error
// naming the path and the reason (a missing folder, a folder where the file should be, a full disk).
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// The temporary name write_file_atomically uses beside `path`: ".<start of the name>.tmp-<host>-<pid>-<n>". Only the
// first 64 bytes of the name are kept, so any legal file name (up to 255 bytes) still leaves room for the suffix.
std::filesystem::path temporary_beside(const std::filesystem::path& path);

// What marks such a temporary: ".tmp-".
inline constexpr const char* temporary_marker = ".tmp-";

}  // namespace grader
