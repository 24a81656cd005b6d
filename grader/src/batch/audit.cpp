#include "batch/audit.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "batch/gradebook.h"

namespace grader {

namespace fs = std::filesystem;

namespace {

// Who ran the regrade: the login name of this process's user, else its uid.
std::string user_name() {
  if (const passwd* pw = ::getpwuid(::geteuid()); pw != nullptr && pw->pw_name != nullptr) return pw->pw_name;
  return "uid " + std::to_string(::geteuid());
}

void write_all(int fd, const std::string& text, const fs::path& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("cannot append to " + path.string() + ": " + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

// Closes the descriptor (and so releases its flock) however the append ends.
struct OpenFile {
  int fd;
  ~OpenFile() { ::close(fd); }
};

}  // namespace

fs::path regrade_log_path(const fs::path& out) { return out / "regrades.csv"; }

void record_regrade(const fs::path& out, const RegradeRecord& r) {
  const fs::path path = regrade_log_path(out);
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + path.string() + " to record a regrade: " + std::strerror(errno));
  OpenFile file{fd};
  // Held while appending, so a header is written once and rows from several writers never interleave. A file
  // system without locks (ENOLCK) still gets the row: O_APPEND keeps one write() whole on a local disk.
  while (::flock(fd, LOCK_EX) != 0 && errno == EINTR) {
  }
  struct stat info {};
  std::string text;
  if (::fstat(fd, &info) == 0 && info.st_size == 0)
    text = "graded_at,by,student,old_score,new_score,max,old_status,new_status,reason\r\n";
  text += csv_text_field(r.graded_at) + "," + csv_text_field(user_name()) + "," + csv_text_field(r.student) + "," +
          format_points(r.old_score) + "," + format_points(r.new_score) + "," + format_points(r.max_score) + "," +
          csv_text_field(r.old_status) + "," + csv_text_field(r.new_status) + "," +
          csv_text_field(r.reason.empty() ? "no reason given" : r.reason) + "\r\n";
  write_all(fd, text, path);
  if (::fsync(fd) != 0) throw std::runtime_error("cannot sync " + path.string() + ": " + std::strerror(errno));
}

}  // namespace grader
