#include "core/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "core/unique_name.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path.string());
}

void fsync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", folder);
  ::fsync(fd);  // some file systems refuse fsync on a folder; the rename is still atomic there
  ::close(fd);
}

}  // namespace

fs::path temporary_beside(const fs::path& path) {
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  // A student id may be 255 bytes, the longest name Linux allows: the whole name plus a suffix would not fit
  // ("File name too long" once stopped a batch for good). The unique suffix alone keeps temporaries apart.
  std::string start = path.filename().string().substr(0, 64);
  return folder / ("." + start + temporary_marker + unique_suffix());
}

void write_file_atomically(const fs::path& path, const std::string& content) {
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const fs::path temporary = temporary_beside(path);
  // O_CLOEXEC: compilers and workers are started from other threads meanwhile; none may inherit this file.
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", temporary);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n == 0 ? ENOSPC : errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      errno = error;
      fail("cannot write", temporary);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(temporary.c_str());
    fail("cannot write", temporary);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    errno = error;
    fail("cannot rename into", path);
  }
  fsync_folder(folder);
}

}  // namespace grader
