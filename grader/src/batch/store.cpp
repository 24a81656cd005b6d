#include "batch/store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <span>
#include <sstream>
#include <system_error>

#include "core/utf8.h"
#include "data/sha256.h"
#include "report/writers.h"

namespace grader {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw std::system_error(errno, std::generic_category(), what + " " + path.string());
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

std::string file_stem(const std::string& id) {
  constexpr std::size_t longest = 128;  // + ".results.json" + a temporary's suffix stays under NAME_MAX
  if (id.size() <= longest && is_valid_utf8(id)) return id;
  std::string start = valid_utf8(id.substr(0, 64));
  // A cut inside a multi-byte character became U+FFFD; harmless, the hash tells ids apart.
  return start + "~" + sha256_hex(std::as_bytes(std::span(id.data(), id.size()))).substr(0, 16);
}

FolderLock::FolderLock(const fs::path& folder, Mode mode) {
  const fs::path path = folder / ".lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot open the lock", path);
  const int operation = mode == Mode::exclusive ? LOCK_EX | LOCK_NB : LOCK_SH;
  while (::flock(fd_, operation) != 0) {
    if (errno == EINTR) continue;
    const int error = errno;
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK)
      throw BusyFolder("another grader batch is writing into " + folder.string() +
                       "; wait for it to end (or choose another --out): two batches into one folder would grade "
                       "every student twice");
    why_ = std::string("cannot lock ") + path.string() + ": " + std::strerror(error);
    return;
  }
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

ResultStore::ResultStore(fs::path folder) : folder_(std::move(folder)) {
  std::error_code ec;
  fs::create_directories(folder_, ec);
  if (ec || !fs::is_directory(folder_))
    throw std::runtime_error("cannot use " + folder_.string() + " as the output folder: " +
                             (ec ? ec.message() : std::string("it is not a folder")));
  if (::access(folder_.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error("cannot write into the output folder " + folder_.string() + ": " + std::strerror(errno));
}

std::optional<BatchSettings> ResultStore::settings() const {
  auto value = read_json(folder_ / ".batch.json");
  if (!value || !value->is_object()) return std::nullopt;
  BatchSettings s;
  s.lab = value->value("lab", "");
  s.seed = value->value("seed", std::uint64_t{0});
  s.quick = value->value("quick", false);
  if (const auto formats = value->find("formats"); formats != value->end() && formats->is_array())
    for (const auto& format : *formats)
      if (format.is_string()) s.formats.push_back(format.get<std::string>());
  // A folder from a grader that did not remember its formats: its Gradescope files say it wrote them.
  std::error_code ec;
  if (!s.writes(gradescope_format) && fs::is_directory(folder_ / "gradescope", ec)) s.formats.push_back(gradescope_format);
  return s;
}

bool BatchSettings::writes(const std::string& format) const {
  return std::find(formats.begin(), formats.end(), format) != formats.end();
}

void ResultStore::save_settings(const BatchSettings& s) const {
  const json value = {{"schema", "grader-batch/1"}, {"lab", s.lab}, {"seed", s.seed}, {"quick", s.quick}, {"formats", s.formats}};
  write_file_atomically(folder_ / ".batch.json", json_text(value));
}

std::optional<json> ResultStore::result(const std::string& id) const {
  auto value = read_json(report_path(id));
  if (!value || !value->is_object() || value->value("schema", "") != "grader-report/1") return std::nullopt;
  const auto batch = value->find("batch");
  // The id as the report can hold it: a name that is not UTF-8 is stored with U+FFFD (core/utf8.h).
  if (batch == value->end() || !batch->is_object() || batch->value("student", "") != valid_utf8(id)) return std::nullopt;
  return value;
}

void ResultStore::save_gradescope(const std::string& id, const json& results) const {
  fs::create_directories(gradescope_path(id).parent_path());
  write_file_atomically(gradescope_path(id), json_text(results));
}

void ResultStore::save(const std::string& id, const StudentFiles& files) const {
  write_file_atomically(text_path(id), valid_utf8(files.text));
  if (files.gradescope) save_gradescope(id, *files.gradescope);
  json report = files.report;
  if (report.contains("batch") && report["batch"].is_object()) report["batch"]["file"] = file_stem(id);
  write_file_atomically(report_path(id), json_text(report));  // last: the student is finished
}

std::vector<json> ResultStore::all_results() const {
  std::vector<json> results;
  for (const auto& entry : fs::directory_iterator(folder_)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || entry.path().extension() != ".json" || !entry.is_regular_file()) continue;
    // A report whose "batch.file" (or, from an older grader, "batch.student") is not its file name is not a result.
    const std::string stem = entry.path().stem().string();
    auto value = read_json(entry.path());
    if (!value || !value->is_object() || value->value("schema", "") != "grader-report/1") continue;
    const auto batch = value->find("batch");
    if (batch == value->end() || !batch->is_object() || !(*batch)["student"].is_string()) continue;
    if (batch->value("file", batch->value("student", "")) != stem) continue;
    results.push_back(std::move(*value));
  }
  std::sort(results.begin(), results.end(), [](const json& a, const json& b) {
    return a["batch"]["student"].get<std::string>() < b["batch"]["student"].get<std::string>();
  });
  return results;
}

void ResultStore::remove_stale_temporaries() const {
  const auto stale_before = fs::file_time_type::clock::now() - std::chrono::minutes(5);
  for (const fs::path& folder : {folder_, folder_ / "gradescope"}) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name[0] != '.' || name.find(temporary_marker) == std::string::npos) continue;
      // remove_all: a replay bundle is staged as a folder (bundle/bundle.h).
      if (entry.last_write_time(ec) < stale_before) fs::remove_all(entry.path(), ec);
    }
  }
}

}  // namespace grader
