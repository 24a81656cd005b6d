#include "batch/archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

namespace grader {

namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string mebibytes(std::uint64_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// A file descriptor that closes itself.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Fd& operator=(Fd&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_;
};

// The entry's path as components, or a refusal. "./a//b/" -> {"a", "b"}.
bool split_entry_path(const std::string& name, std::vector<std::string>& parts, std::string& refusal) {
  const std::string shown = "entry '" + name + "'";
  if (!name.empty() && name[0] == '/') {
    refusal = shown + " is an absolute path";
    return false;
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string part = name.substr(start, end - start);
    if (part == "..") {
      refusal = shown + " climbs out of the folder";
      return false;
    }
    if (!part.empty() && part != ".") parts.push_back(part);
    start = end + 1;
  }
  return true;
}

// Opens (creating where needed) the folder `parts[0..count)` under `root`, never following a link: every
// step is relative to the folder opened before it, with O_NOFOLLOW.
Fd open_folder(int root, const std::vector<std::string>& parts, std::size_t count, std::string& error) {
  Fd current(::fcntl(root, F_DUPFD_CLOEXEC, 0));
  for (std::size_t i = 0; i < count; ++i) {
    if (::mkdirat(current.get(), parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
      error = std::strerror(errno);
      return Fd();
    }
    Fd next(::openat(current.get(), parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      error = errno == ENOTDIR || errno == ELOOP ? "'" + parts[i] + "' is a file, not a folder" : std::strerror(errno);
      return Fd();
    }
    current = std::move(next);
  }
  return current;
}

std::string kind_of(mode_t type) {
  switch (type) {
    case AE_IFLNK: return "a symbolic link";
    case AE_IFCHR: return "a character device";
    case AE_IFBLK: return "a block device";
    case AE_IFIFO: return "a named pipe";
    case AE_IFSOCK: return "a socket";
    default: return "neither a file nor a folder";
  }
}

void empty_folder(const fs::path& folder) {
  std::error_code ec;
  for (const auto& child : fs::directory_iterator(folder, ec)) fs::remove_all(child.path(), ec);
}

struct ArchiveDeleter {
  void operator()(struct archive* a) const { archive_read_free(a); }
};

UnpackResult unpack(const fs::path& archive_path, const fs::path& into, const UnpackLimits& limits) {
  UnpackResult result;
  auto refuse = [&](const std::string& why) {
    result.ok = false;
    result.refusal = why;
    return result;
  };

  std::unique_ptr<struct archive, ArchiveDeleter> reader(archive_read_new());
  archive_read_support_format_zip(reader.get());
  archive_read_support_format_tar(reader.get());
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_filter_bzip2(reader.get());
  archive_read_support_filter_xz(reader.get());
  if (archive_read_open_filename(reader.get(), archive_path.c_str(), 64 * 1024) != ARCHIVE_OK)
    return refuse(std::string("it cannot be read: ") + archive_error_string(reader.get()));

  Fd root(::open(into.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!root.valid()) throw std::runtime_error("cannot open the work folder " + into.string() + ": " + std::strerror(errno));

  struct archive_entry* entry = nullptr;
  for (;;) {
    const int status = archive_read_next_header(reader.get(), &entry);
    if (status == ARCHIVE_EOF) break;
    if (status != ARCHIVE_OK && status != ARCHIVE_WARN)
      return refuse(std::string("it cannot be read: ") + archive_error_string(reader.get()));

    const char* raw_name = archive_entry_pathname(entry);
    if (raw_name == nullptr) return refuse("an entry's name cannot be read in this machine's character set");
    const std::string name = raw_name;
    if (++result.entries > limits.max_entries)
      return refuse("it holds more than " + std::to_string(limits.max_entries) + " entries");

    std::vector<std::string> parts;
    std::string refusal;
    if (!split_entry_path(name, parts, refusal)) return refuse(refusal);
    // Checked before the type: a hard link's own type is often "regular file".
    if (archive_entry_hardlink(entry) != nullptr) return refuse("entry '" + name + "' is a hard link");
    const mode_t type = archive_entry_filetype(entry);
    if (type != AE_IFREG && type != AE_IFDIR) return refuse("entry '" + name + "' is " + kind_of(type));
    if (parts.empty()) {
      if (type == AE_IFDIR) continue;  // "./": the folder itself
      return refuse("entry '" + name + "' has no name");
    }

    std::string error;
    Fd folder = open_folder(root.get(), parts, type == AE_IFDIR ? parts.size() : parts.size() - 1, error);
    if (!folder.valid()) return refuse("entry '" + name + "' cannot be written: " + error);
    if (type == AE_IFDIR) continue;

    if (archive_entry_size_is_set(entry) && archive_entry_size(entry) >= 0 &&
        result.bytes + static_cast<std::uint64_t>(archive_entry_size(entry)) > limits.max_bytes)
      return refuse("it expands past " + mebibytes(limits.max_bytes) + " (entry '" + name + "' alone is " +
                    mebibytes(static_cast<std::uint64_t>(archive_entry_size(entry))) + ")");
    Fd file(::openat(folder.get(), parts.back().c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!file.valid()) {
      if (errno == EEXIST) return refuse("entry '" + name + "' appears twice");
      return refuse("entry '" + name + "' cannot be written: " + std::strerror(errno));
    }
    // The header's size can lie: count what is actually written.
    std::uint64_t extent = 0;
    for (;;) {
      const void* block = nullptr;
      size_t size = 0;
      la_int64_t offset = 0;
      const int got = archive_read_data_block(reader.get(), &block, &size, &offset);
      if (got == ARCHIVE_EOF) break;
      if (got != ARCHIVE_OK && got != ARCHIVE_WARN)
        return refuse("entry '" + name + "' cannot be read: " + archive_error_string(reader.get()));
      if (offset < 0) return refuse("entry '" + name + "' cannot be read: a negative offset");
      const std::uint64_t end = static_cast<std::uint64_t>(offset) + size;
      if (result.bytes + end > limits.max_bytes) return refuse("it expands past " + mebibytes(limits.max_bytes));
      extent = std::max(extent, end);
      const char* data = static_cast<const char*>(block);
      std::size_t written = 0;
      while (written < size) {
        const ssize_t n = ::pwrite(file.get(), data + written, size - written, offset + static_cast<off_t>(written));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return refuse("entry '" + name + "' cannot be written: " + std::strerror(errno));
        written += static_cast<std::size_t>(n);
      }
    }
    result.bytes += extent;
  }
  result.ok = true;
  return result;
}

}  // namespace

ArchiveFormat archive_format_of(const std::string& file_name, std::string& stem) {
  static const std::pair<const char*, ArchiveFormat> extensions[] = {
      {".tar.gz", ArchiveFormat::tar_gz}, {".tgz", ArchiveFormat::tar_gz}, {".zip", ArchiveFormat::zip},
      {".tar", ArchiveFormat::tar}};
  for (const auto& [extension, format] : extensions) {
    if (ends_with(file_name, extension)) {
      stem = file_name.substr(0, file_name.size() - std::strlen(extension));
      return format;
    }
  }
  stem = file_name;
  return ArchiveFormat::none;
}

UnpackResult unpack_archive(const fs::path& archive, const fs::path& into, const UnpackLimits& limits) {
  UnpackResult result = unpack(archive, into, limits);
  if (!result.ok) empty_folder(into);  // nothing of a refused archive is kept, not even to be looked at
  return result;
}

}  // namespace grader
