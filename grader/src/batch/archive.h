// archive.h: unpacks one student's archive (.zip, .tar.gz) into a fresh folder, refusing anything that could
// write outside it or fill the disk. Course platforms export a class as one archive per student; nothing in
// an archive is trusted.
//
//   UnpackLimits limits;                          // 64 MiB and 2000 entries
//   UnpackResult r = unpack_archive("subs/alice.zip", "/tmp/work/alice", limits);
//   if (!r.ok) std::cout << r.refusal;            // "entry '../x' climbs out of the folder"
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace grader {

enum class ArchiveFormat { none, zip, tar_gz, tar };

// The archive format a file name announces (.zip, .tar.gz, .tgz, .tar), and the name without that extension
// ("alice.tar.gz" -> tar_gz, "alice"). A name without one of these is ArchiveFormat::none, stem = name.
ArchiveFormat archive_format_of(const std::string& file_name, std::string& stem);

struct UnpackLimits {
  std::uint64_t max_bytes = 64ull << 20;  // all files together, as unpacked
  std::size_t max_entries = 2000;         // files and folders
};

struct UnpackResult {
  bool ok = false;
  std::string refusal;  // why the archive was refused, in words a student can act on; empty when ok
  std::size_t entries = 0;
  std::uint64_t bytes = 0;
};

// Unpacks `archive` into `into` (an existing, empty folder). Only regular files and folders are written,
// with fresh permissions (0644, 0755); an entry that is a link (symbolic or hard), a device, a pipe or a
// socket, a path that is absolute or climbs out with "..", a name that appears twice, or an archive that
// expands past the limits refuses the whole archive, and `into` is emptied again.
UnpackResult unpack_archive(const std::filesystem::path& archive, const std::filesystem::path& into,
                            const UnpackLimits& limits);

}  // namespace grader
