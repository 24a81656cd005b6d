#include "export/zip.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <vector>

#include "export/export.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

struct WriterDeleter {
  void operator()(archive* a) const { archive_write_free(a); }
};
struct EntryDeleter {
  void operator()(archive_entry* e) const { archive_entry_free(e); }
};

void check(archive* a, int status, const std::string& what) {
  if (status < ARCHIVE_WARN) throw ExportError(what + ": " + (archive_error_string(a) ? archive_error_string(a) : "libarchive failed"));
}

}  // namespace

void write_zip(const fs::path& dir, const fs::path& zip) {
  std::unique_ptr<archive, WriterDeleter> writer(archive_write_new());
  check(writer.get(), archive_write_set_format_zip(writer.get()), "cannot write a zip");
  check(writer.get(), archive_write_open_filename(writer.get(), zip.c_str()), "cannot create " + zip.string());

  std::vector<fs::path> paths;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  std::vector<char> buffer(1 << 16);
  for (const auto& path : paths) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) throw ExportError("cannot read " + path.string());
    const bool folder = S_ISDIR(info.st_mode);
    if (!folder && !S_ISREG(info.st_mode)) throw ExportError(path.string() + " is not a plain file; a zip holds plain files only");
    std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new());
    const std::string name = path.lexically_relative(dir).string() + (folder ? "/" : "");
    archive_entry_set_pathname(entry.get(), name.c_str());
    archive_entry_set_filetype(entry.get(), folder ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(entry.get(), info.st_mode & 0777);
    archive_entry_set_mtime(entry.get(), info.st_mtime, 0);
    archive_entry_set_size(entry.get(), folder ? 0 : info.st_size);
    check(writer.get(), archive_write_header(writer.get(), entry.get()), "cannot add " + name);
    if (folder) continue;
    std::ifstream in(path, std::ios::binary);
    while (in) {
      in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      const auto got = in.gcount();
      if (got > 0 && archive_write_data(writer.get(), buffer.data(), static_cast<std::size_t>(got)) != got)
        throw ExportError("cannot add " + name + ": " + (archive_error_string(writer.get()) ? archive_error_string(writer.get()) : "short write"));
    }
    if (in.bad()) throw ExportError("cannot read " + path.string());
  }
  check(writer.get(), archive_write_close(writer.get()), "cannot finish " + zip.string());
}

}  // namespace grader
