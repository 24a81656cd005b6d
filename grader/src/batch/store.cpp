#include "core/unique_name.h"
#include "batch/store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace grader {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* temporary_marker = ".tmp-";

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path.string());
}

void fsync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open", folder);
  ::fsync(fd);  // some file systems refuse fsync on a folder; the rename is still atomic there
  ::close(fd);
}

std::optional<json> read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  json value = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

}  // namespace

void write_file_atomically(const fs::path& path, const std::string& content) {
  const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  const fs::path temporary = folder / ("." + path.filename().string() + temporary_marker + unique_suffix());
  // O_CLOEXEC: compilers and workers are started from other threads meanwhile; none may inherit this file.
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create", temporary);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
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
    ::unlink(temporary.c_str());
    fail("cannot rename into", path);
  }
  fsync_folder(folder);
}

ResultStore::ResultStore(fs::path folder) : folder_(std::move(folder)) { fs::create_directories(folder_); }

std::optional<BatchSettings> ResultStore::settings() const {
  auto value = read_json(folder_ / ".batch.json");
  if (!value || !value->is_object()) return std::nullopt;
  BatchSettings s;
  s.lab = value->value("lab", "");
  s.seed = value->value("seed", std::uint64_t{0});
  s.quick = value->value("quick", false);
  return s;
}

void ResultStore::save_settings(const BatchSettings& s) const {
  const json value = {{"schema", "grader-batch/1"}, {"lab", s.lab}, {"seed", s.seed}, {"quick", s.quick}};
  write_file_atomically(folder_ / ".batch.json", value.dump(2) + "\n");
}

std::optional<json> ResultStore::result(const std::string& id) const {
  auto value = read_json(report_path(id));
  if (!value || !value->is_object() || value->value("schema", "") != "grader-report/1") return std::nullopt;
  const auto batch = value->find("batch");
  if (batch == value->end() || !batch->is_object() || batch->value("student", "") != id) return std::nullopt;
  return value;
}

void ResultStore::save(const std::string& id, const StudentFiles& files) const {
  write_file_atomically(text_path(id), files.text);
  if (files.gradescope) write_file_atomically(gradescope_path(id), files.gradescope->dump(2) + "\n");
  write_file_atomically(report_path(id), files.report.dump(2) + "\n");  // last: the student is finished
}

std::vector<json> ResultStore::all_results() const {
  std::vector<json> results;
  for (const auto& entry : fs::directory_iterator(folder_)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || entry.path().extension() != ".json" || !entry.is_regular_file()) continue;
    // A Gradescope file (no schema) or a report whose "batch.student" is not its file name is not a result.
    if (auto value = result(entry.path().stem().string())) results.push_back(std::move(*value));
  }
  std::sort(results.begin(), results.end(), [](const json& a, const json& b) {
    return a["batch"]["student"].get<std::string>() < b["batch"]["student"].get<std::string>();
  });
  return results;
}

void ResultStore::remove_stale_temporaries() const {
  const auto stale_before = fs::file_time_type::clock::now() - std::chrono::minutes(5);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(folder_, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] != '.' || name.find(temporary_marker) == std::string::npos) continue;
    if (entry.last_write_time(ec) < stale_before) fs::remove(entry.path(), ec);
  }
}

}  // namespace grader
