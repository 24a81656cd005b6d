// manifest.h: datasets/<lab>/manifest.toml, the list of a lab's public cases stored as .npy files.
//
// Each [[dataset]] records how its inputs were made (seed, params), which judge variant produced the expected
// outputs, which .npy file holds each array, and each file's SHA-256, so a dataset that changed by accident
// is refused rather than silently graded against:
//
//   # Public cases for lab1. Regenerate with `grader datasets generate lab1`; check with `grader datasets verify lab1`.
//   [[dataset]]
//   name = "square-8"
//   seed = 101
//   variant = "rowptr"
//   params = { m = 8, n = 8 }
//   inputs = { a = "square-8.a.npy", x = "square-8.x.npy" }
//   expected = { y = "square-8.y.npy" }
//   sha256 = { "square-8.a.npy" = "…", "square-8.x.npy" = "…", "square-8.y.npy" = "…" }
//
//   Manifest manifest = load_manifest("datasets/lab1");
//   const DatasetEntry* entry = manifest.find("square-8");
//   DatasetArrays arrays = load_dataset_arrays(manifest, *entry);   // arrays.inputs[0].name == "a"
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "data/array.h"

namespace grader {

// A manifest that cannot be read or is not valid. what() reads "file:line:column: message" (or "file: message"
// when no position applies, line and column 0).
class ManifestError : public std::runtime_error {
 public:
  ManifestError(std::filesystem::path file, int line, int column, const std::string& message);
  const std::filesystem::path& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::filesystem::path file_;
  int line_;
  int column_;
  std::string message_;
};

struct DatasetParam {
  std::string name;
  double value = 0;
};

// One array of a dataset: the name the harness knows it by, and the .npy file beside the manifest.
struct DatasetFile {
  std::string array;
  std::string file;
};

struct DatasetEntry {
  std::string name;
  std::uint64_t seed = 0;  // at most 2^63 - 1: TOML integers are signed 64-bit
  std::string variant;     // the judge implementation whose outputs are the expected ones
  std::vector<DatasetParam> params;   // in the order the manifest lists them
  std::vector<DatasetFile> inputs;
  std::vector<DatasetFile> expected;  // empty until `grader datasets generate` has run for this entry
  std::map<std::string, std::string> sha256;  // file name -> lowercase hex digest, one for every file named
};

struct Manifest {
  std::filesystem::path dir;  // datasets/<lab>; file names in entries are relative to it
  std::vector<DatasetEntry> entries;

  const DatasetEntry* find(std::string_view name) const;  // nullptr when no entry has that name
  std::filesystem::path file() const { return dir / "manifest.toml"; }
};

// Reads and validates <dir>/manifest.toml: known keys only, names unique, file names plain "*.npy" names
// (never paths), exactly one 64-digit lowercase checksum per file named. An entry without a sha256 table awaits
// `grader datasets generate` (name, seed, variant and params written by hand): any inputs or expected it names are
// left out until generate writes them with their checksums. A missing manifest
// is an error too: whether a lab without datasets is fine is the caller's decision. Throws ManifestError.
Manifest load_manifest(const std::filesystem::path& dir);

// The same for manifest text; `file` is used in messages and as the manifest's location.
Manifest parse_manifest(std::string_view text, const std::filesystem::path& file);

// Writes <manifest.dir>/manifest.toml in the format above, comment header included (replacing the file
// atomically, so an interrupted write leaves the old manifest). Throws std::invalid_argument for a value TOML
// cannot hold (a seed past 2^63 - 1, a param that is NaN or infinite), std::runtime_error if writing fails.
void save_manifest(const Manifest& manifest);

// The manifest's text, as save_manifest writes it.
std::string format_manifest(const Manifest& manifest);

// Everything wrong with the files on disk, one line each, empty when all is well: an entry not generated yet,
// a file missing, a checksum that differs (both digests given), a file that is not a valid .npy, a .npy file in
// the directory that no dataset names.
std::vector<std::string> verify_manifest(const Manifest& manifest);

struct DatasetArrays {
  std::vector<Array> inputs;    // named by the manifest's keys, in its order
  std::vector<Array> expected;
};

// Reads an entry's arrays, checking each file's checksum first. Throws std::runtime_error naming the file
// for a missing file, a checksum mismatch or an invalid .npy, and for an entry not generated yet.
DatasetArrays load_dataset_arrays(const Manifest& manifest, const DatasetEntry& entry);

}  // namespace grader
