#include "bundle/bundle.h"

#include <unistd.h>

#include <fstream>
#include <sstream>

#include "calibrate/calibration.h"
#include "core/atomic_file.h"
#include "core/tool.h"
#include "data/sha256.h"
#include "report/writers.h"

namespace grader {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

bool is_bundle(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "bundle.json", ec);
}

bool is_empty_folder(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::directory_iterator(dir, ec) == fs::directory_iterator();
}

json timing_samples(const Timing& timing) { return {{"label", timing.label}, {"seconds", timing.seconds}}; }

// What a tool says its version is, or why it could not say.
std::string version_of(const std::string& tool) {
  const ToolResult result = run_tool({tool, "--version"}, ".", 60);
  return result.ok() ? result.output : "(could not run `" + tool + " --version`)";
}

// The compile and link commands as they ran are in the report's build_log.
json toolchain(const Environment& env, const LabSpec& spec) {
  return {{"cxx", env.cxx},
              {"cxx_version", version_of(env.cxx)},
              {"language", spec.build.language},
              {"flags", spec.build.flags},
              {"link_flags", spec.build.link_flags},
              {"judge_link_flags", spec.build.judge_link_flags},
              {"nvcc", env.nvcc ? json(*env.nvcc) : json(nullptr)},
              {"nvcc_version", env.nvcc ? json(version_of(*env.nvcc)) : json(nullptr)}};
}

json calibration_used(const Environment& env) {
  std::ifstream in(calibration_path(env));
  if (!in) return nullptr;
  std::stringstream text;
  text << in.rdbuf();
  json parsed = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  return parsed.is_discarded() ? json(text.str()) : parsed;
}

}  // namespace

std::map<std::string, std::string> folder_hashes(const fs::path& folder) {
  std::map<std::string, std::string> hashes;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return hashes;
  for (auto it = fs::recursive_directory_iterator(folder, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
    hashes[it->path().lexically_relative(folder).generic_string()] = sha256_file(it->path());
  }
  return hashes;
}

std::map<std::string, std::string> lab_file_hashes(const Environment& env, const LabSpec& spec) {
  std::map<std::string, std::string> hashes;
  for (const fs::path& folder : {spec.dir, env.root / "datasets" / spec.name(), env.root / "grader" / "labkit"}) {
    const fs::path relative = folder.lexically_relative(env.root);
    for (const auto& [name, hash] : folder_hashes(folder)) hashes[(relative / name).generic_string()] = hash;
  }
  return hashes;
}

std::vector<std::string> changed_files(const std::map<std::string, std::string>& then,
                                       const std::map<std::string, std::string>& now) {
  std::vector<std::string> changed;
  for (const auto& [name, hash] : then) {
    auto found = now.find(name);
    if (found == now.end()) changed.push_back(name + " (missing now)");
    else if (found->second != hash) changed.push_back(name + " (changed)");
  }
  for (const auto& [name, hash] : now)
    if (!then.contains(name)) changed.push_back(name + " (new)");
  return changed;
}

BundleWriter::BundleWriter(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dir_, ec)) && !is_bundle(dir_) && !is_empty_folder(dir_))
    throw BundleError(dir_.string() + " exists and is not a replay bundle (no bundle.json in it): give a new folder name");
  const fs::path parent = dir_.parent_path().empty() ? fs::path(".") : dir_.parent_path();
  fs::create_directories(parent, ec);
  if (ec || ::access(parent.c_str(), W_OK | X_OK) != 0)
    throw BundleError("cannot write a bundle into " + parent.string());
  // A hidden, unique name a batch's store recognises and sweeps when a killed run left it (batch/store.h).
  staging_ = temporary_beside(dir_);
  fs::create_directories(staged_copy(), ec);
  if (ec) throw BundleError("cannot create " + staging_.string() + ": " + ec.message());
}

BundleWriter::~BundleWriter() {
  std::error_code ec;
  if (!staging_.empty()) fs::remove_all(staging_, ec);
}

void BundleWriter::finish(const Environment& env, const LabSpec& spec, const GradeOptions& options, const Report& report) {
  json samples = json::array();
  for (const auto& test : report.tests) {
    if (!test.measurement) continue;
    const Measurement& m = *test.measurement;
    json compare = json::array();
    for (const auto& t : m.compare) compare.push_back(timing_samples(t));
    samples.push_back({{"item", test.name},
                       {"candidate", timing_samples(m.candidate)},
                       {"baseline", timing_samples(m.baseline)},
                       {"compare", compare}});
  }
  json machine = to_json(report)["machine"];
  machine["machine_id"] = machine_id();
  const json bundle = {{"schema", bundle_schema},
                       {"lab", spec.id},
                       {"lab_name", spec.name()},
                       {"seed", options.seed},
                       {"options", {{"quick", options.quick}, {"hidden", options.include_hidden}, {"sanitize", options.sanitize}}},
                       {"submission", report.submission},
                       {"staged_files", folder_hashes(staged_copy())},
                       {"lab_files", lab_file_hashes(env, spec)},
                       {"toolchain", toolchain(env, spec)},
                       {"machine", machine},
                       {"calibration", calibration_used(env)},
                       {"samples", samples},
                       {"report", to_json(report)}};
  write_file_atomically(staging_ / "bundle.json", json_text(bundle));
  std::error_code ec;
  // An older bundle of the same grading (a regrade) makes way; the check in the constructor made sure it is one.
  if (fs::exists(fs::symlink_status(dir_, ec))) {
    if (!is_bundle(dir_) && !is_empty_folder(dir_))
      throw BundleError(dir_.string() + " appeared while grading and is not a replay bundle; the bundle is left in " +
                        staging_.string());
    fs::remove_all(dir_, ec);
  }
  fs::rename(staging_, dir_, ec);
  if (ec) throw BundleError("cannot move the bundle into " + dir_.string() + ": " + ec.message());
  staging_.clear();
}

json read_bundle(const fs::path& dir) {
  const fs::path file = fs::is_directory(dir) ? dir / "bundle.json" : dir;
  std::ifstream in(file);
  if (!in) throw BundleError("no replay bundle at " + dir.string() + " (cannot read " + file.string() + ")");
  std::stringstream text;
  text << in.rdbuf();
  json bundle = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (bundle.is_discarded() || !bundle.is_object()) throw BundleError(file.string() + " is not valid JSON");
  if (bundle.value("schema", "") != bundle_schema)
    throw BundleError(file.string() + " is not a replay bundle of this grader (schema is not " + std::string(bundle_schema) + ")");
  for (const char* key : {"lab", "seed", "options", "lab_files", "staged_files", "report"})
    if (!bundle.contains(key)) throw BundleError(file.string() + " lacks \"" + key + "\"");
  if (!bundle["seed"].is_number_unsigned()) throw BundleError(file.string() + ": \"seed\" is not an unsigned integer");
  return bundle;
}

}  // namespace grader
