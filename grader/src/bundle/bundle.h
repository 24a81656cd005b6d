// bundle.h: a replay bundle, the evidence behind one grading (docs/design.md, "Replay bundles"). A folder:
//
//   <bundle>/bundle.json    schema "grader-bundle/1": the seed and options; sha256 of every staged file and of every
//                           lab file; the compiler's and nvcc's versions and the lab's flags; the machine and the
//                           calibration the grading used; every timed item's raw samples; the report (JSON schema)
//   <bundle>/submission/    the staged files themselves, exactly what was compiled
//
// `grader replay <bundle>` (cli/cmd_replay.cpp) grades the copy again with the same seed and options and compares
// (bundle/replay_diff.h). A bundle is written to a hidden folder beside its place and renamed into it when whole, so
// a bundle that exists is complete.
//
//   BundleWriter bundle(out / "alice.bundle");
//   options.keep_staged_in = bundle.staged_copy();
//   Report report = grade_submission(env, spec, options);
//   bundle.finish(env, spec, options, report);
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/environment.h"
#include "pipeline/grade.h"
#include "report/report.h"
#include "spec/lab_spec.h"

namespace grader {

constexpr const char* bundle_schema = "grader-bundle/1";

// A bundle that cannot be written or read; the message says which file and why.
struct BundleError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class BundleWriter {
 public:
  // Throws BundleError when `dir` is something other than a bundle (a file, a folder with other things in it) or
  // its parent cannot be written: checked before grading, so a mistyped --bundle costs no grading.
  explicit BundleWriter(std::filesystem::path dir);
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;
  ~BundleWriter();  // removes the unfinished bundle, if any

  // Where the pipeline copies the staged files (GradeOptions::keep_staged_in).
  std::filesystem::path staged_copy() const { return staging_ / "submission"; }
  // Writes bundle.json and puts the bundle in place, replacing an older bundle there.
  void finish(const Environment& env, const LabSpec& spec, const GradeOptions& options, const Report& report);
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path staging_;
};

// Every regular file under the lab's folder, its public datasets (datasets/<lab>) and the lab kit (grader/labkit), by
// path relative to the root: what decides a grade besides the submission and the grader itself.
std::map<std::string, std::string> lab_file_hashes(const Environment& env, const LabSpec& spec);

// Every regular file under `folder`, by path relative to it.
std::map<std::string, std::string> folder_hashes(const std::filesystem::path& folder);

// The lab files whose hashes differ between the bundle and now, each with "(changed)", "(missing now)" or
// "(new)"; empty when they all match.
std::vector<std::string> changed_files(const std::map<std::string, std::string>& then,
                                       const std::map<std::string, std::string>& now);

// The bundle's bundle.json, checked for its schema and the fields a replay reads. Throws BundleError.
nlohmann::json read_bundle(const std::filesystem::path& dir);

}  // namespace grader
