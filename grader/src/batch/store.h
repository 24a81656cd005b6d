// store.h: a batch's output folder. A student's files are written the moment their grading ends, each one
// atomically (temporary name, fsync, rename, fsync of the folder) and <id>.json last, so a student is
// finished exactly when a whole <id>.json is there: a batch killed at any instant, even by SIGKILL or a
// power cut, restarts where it stopped and grades nobody twice. The gradebook and the summary are derived
// from these files at the end of every run (batch/gradebook.h, batch/summary.h), never appended to.
//
//   <out>/.batch.json         the settings every run into this folder must share (lab, seed, --quick) and the
//                             output formats it writes (--gradescope), so a regrade rewrites every file of a student
//   <out>/regrades.csv        every regrade: when, by whom, old and new score, the --reason (batch/audit.h)
//   <out>/<id>.json           the report, --format json's schema, plus a "batch" object (below)
//   <out>/<id>.txt            the report as the student reads it from `grader <lab>`, without colour
//   <out>/<id>.bundle/        the grading's replay bundle (bundle/bundle.h), written before <id>.json; not with --no-bundles
//   <out>/gradescope/<id>.results.json   Gradescope's results.json (with --gradescope); in a folder of its own so
//                             student `gs.results`'s report and student `gs`'s results.json are different files
//   <out>/.lock               held (flock) by the batch writing here, so two batches never grade the class twice
//
// <id> is the student id itself when that is UTF-8 and at most 128 bytes; otherwise (a Latin-1 folder name, a
// name up to Linux's 255 bytes) its first bytes made valid UTF-8, "~" and a hash of the whole id, so every
// file name fits and two ids never share one.
//
// The "batch" object: {"student": "alice", "source": "alice.zip", "intake": "zip", "refused": false,
// "batch_seed": 42, "quick": false, "graded_at": "2025-01-31T12:00:00Z", "file": "alice"}. `student` is the id made
// valid UTF-8; `file` is the <id> of the file names. `intake` is folder, zip, tar.gz, tar or
// other (not something the grader reads); `refused` is true when the submission never reached the
// pipeline (a refused archive, two submissions for one id).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/atomic_file.h"
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace grader {

// The <id> of a student's file names (above).
std::string file_stem(const std::string& id);

// An exclusive or shared flock on <folder>/.lock, released when destroyed. A local batch holds it exclusively; the
// tasks of one SLURM array (disjoint students) share it, and wait while a local batch holds it.
class FolderLock {
 public:
  enum class Mode { exclusive, shared };
  // Throws BusyFolder when `mode` is exclusive and someone holds the lock; a shared lock waits. A file system
  // without locks (some NFS mounts: ENOLCK) gives no lock rather than no grading: held() is false, why() says why.
  FolderLock(const std::filesystem::path& folder, Mode mode);
  bool held() const { return fd_ >= 0; }
  const std::string& why() const { return why_; }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock();

 private:
  int fd_ = -1;
  std::string why_;
};

struct BusyFolder : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What every run into one output folder must agree on, or the gradebook would mix incomparable grades.
struct BatchSettings {
  std::string lab;         // "lab1"
  std::uint64_t seed = 0;  // the batch seed; each student's seed is derived from it and the id
  bool quick = false;      // correctness only
  // The output formats each student gets besides <id>.json and <id>.txt ("gradescope"). Once asked for, kept: every
  // later run, a regrade included, writes them all, so no file of a student is left from an earlier grading.
  std::vector<std::string> formats;
  bool writes(const std::string& format) const;
};

inline constexpr const char* gradescope_format = "gradescope";

struct StudentFiles {
  std::string text;                         // <id>.txt
  nlohmann::json report;                    // <id>.json: to_json's output with the "batch" object added
  std::optional<nlohmann::json> gradescope;  // <id>.results.json
};

class ResultStore {
 public:
  // Creates the folder if needed; throws std::runtime_error with a sentence when it cannot (a file in the way, no
  // permission).
  explicit ResultStore(std::filesystem::path folder);

  const std::filesystem::path& folder() const { return folder_; }

  std::optional<BatchSettings> settings() const;
  void save_settings(const BatchSettings& settings) const;

  // The student's report when it is finished and well formed (a torn or foreign file is not finished).
  std::optional<nlohmann::json> result(const std::string& id) const;
  bool finished(const std::string& id) const { return result(id).has_value(); }

  // Writes the text and Gradescope files, then the JSON that marks the student finished.
  void save(const std::string& id, const StudentFiles& files) const;

  // The Gradescope file alone, for a student finished before --gradescope was asked for (batch/runner.h).
  void save_gradescope(const std::string& id, const nlohmann::json& results) const;

  // Every finished student's report, sorted by id.
  std::vector<nlohmann::json> all_results() const;

  // Removes temporary files a killed run left behind (older than a few minutes, so a run writing into the
  // same folder at the same time, another SLURM task, keeps its own).
  void remove_stale_temporaries() const;

  std::filesystem::path report_path(const std::string& id) const { return folder_ / (file_stem(id) + ".json"); }
  std::filesystem::path text_path(const std::string& id) const { return folder_ / (file_stem(id) + ".txt"); }
  std::filesystem::path bundle_path(const std::string& id) const { return folder_ / (file_stem(id) + ".bundle"); }
  std::filesystem::path gradescope_path(const std::string& id) const {
    return folder_ / "gradescope" / (file_stem(id) + ".results.json");
  }

 private:
  std::filesystem::path folder_;
};

}  // namespace grader
