// grader datasets generate|verify [LAB]: the public cases in datasets/<lab>/. `generate` runs the lab's
// judge on each manifest entry's seed and parameters and writes inputs, expected outputs and checksums;
// `verify` checks every file against the manifest.
//
// Expected outputs must be the same bits on every x86-64 CPU that regenerates them (an Intel and an AMD
// machine must agree on the checksums), so the judge that writes them is built without the lab's
// machine-specific flags: no -march=native (vector width and FMA differ between CPUs), no fast-math, and
// no FMA contraction. CUDA labs compute on the GPU; their outputs are compared within tolerance instead.
#include <algorithm>
#include <cstdio>
#include <string_view>
#include <unistd.h>

#include "build/build.h"
#include "cli/common.h"
#include "data/manifest.h"
#include "data/npy.h"
#include "data/sha256.h"
#include "pipeline/launch.h"
#include "run/worker.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

struct DatasetsCommand {
  std::string action;
  std::optional<std::string> lab;
};

// The lab's flags less everything that lets the result depend on the CPU that builds or runs the judge.
std::vector<std::string> reproducible_flags(const std::vector<std::string>& flags) {
  static constexpr std::string_view cpu_specific[] = {"-march=", "-mtune=", "-mcpu=", "-mavx", "-mfma", "-msse",
                                                      "-ffp-contract=", "-ffast-math", "-funsafe-math",
                                                      "-fassociative-math", "-freciprocal-math"};
  std::vector<std::string> kept;
  for (const auto& flag : flags) {
    const bool drop = std::any_of(std::begin(cpu_specific), std::end(cpu_specific),
                                  [&](std::string_view prefix) { return flag.starts_with(prefix); });
    if (flag == "-Ofast") kept.push_back("-O3");
    else if (!drop) kept.push_back(flag);
  }
  kept.push_back("-ffp-contract=off");
  return kept;
}

void generate(const Environment& env, const LabSpec& spec, Manifest& manifest) {
  LabSpec judge_spec = spec;
  if (spec.build.language != "cuda") judge_spec.build.flags = reproducible_flags(spec.build.flags);
  const LabBuild lab = build_lab(env, judge_spec);
  std::string pattern = (fs::temp_directory_path() / "grader-datasets-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw CommandFailure(ExitCode::internal, "cannot create a temporary directory");
  const fs::path workdir = pattern;
  fs::permissions(workdir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
  // Copied next to its work directory: the worker may run as a user who cannot reach the build tree.
  fs::copy_file(lab.judge, workdir / "judge");
  Worker judge(worker_launch_options(spec, workdir / "judge", workdir), "judge", WorkerCode::lab);
  std::vector<std::string> variants;
  if (!judge.hello(variants, 60)) throw CommandFailure(ExitCode::internal, "the judge did not start: " + judge.failure().details);

  for (auto& entry : manifest.entries) {
    Variables params;
    for (const auto& p : entry.params) params[p.name] = p.value;
    std::vector<Array> inputs, outputs;
    double seconds = 0;
    if (!judge.setup(params, entry.seed, {}, 120) || !judge.inputs(inputs, 120) || !judge.run(entry.variant, 120, outputs, seconds))
      throw CommandFailure(ExitCode::internal, "dataset " + entry.name + ": the judge failed: " + judge.failure().details);
    entry.inputs.clear();
    entry.expected.clear();
    entry.sha256.clear();
    auto save = [&](const Array& array, std::vector<DatasetFile>& into) {
      const std::string file = entry.name + "." + array.name + ".npy";
      write_npy(manifest.dir / file, array);
      into.push_back({array.name, file});
      entry.sha256[file] = sha256_file(manifest.dir / file);
    };
    for (const auto& a : inputs) save(a, entry.inputs);
    for (const auto& a : outputs) save(a, entry.expected);
    std::printf("  %s: %zu inputs, %zu expected outputs\n", entry.name.c_str(), inputs.size(), outputs.size());
  }
  judge.quit();
  fs::remove_all(workdir);
  save_manifest(manifest);
}

void run_datasets(const DatasetsCommand& command) {
  const Environment env = current_environment();
  bool all_ok = true;
  for (const auto& spec : load_labs(env, command.lab)) {
    const fs::path dir = env.root / "datasets" / spec.name();
    if (!fs::exists(dir / "manifest.toml")) {
      if (command.lab) throw CommandFailure(ExitCode::usage, "no " + (dir / "manifest.toml").string());
      continue;
    }
    Manifest manifest;
    try {
      manifest = load_manifest(dir);
    } catch (const std::exception& error) {
      throw CommandFailure(ExitCode::usage, error.what());
    }
    std::printf("%s\n", spec.name().c_str());
    if (command.action == "generate") {
      try {
        generate(env, spec, manifest);
      } catch (const MissingToolchain& missing) {
        throw CommandFailure(ExitCode::environment, missing.what());
      }
    } else {
      auto problems = verify_manifest(manifest);
      for (const auto& p : problems) std::printf("  problem: %s\n", p.c_str());
      if (problems.empty()) std::printf("  %zu datasets, every checksum matches\n", manifest.entries.size());
      all_ok = all_ok && problems.empty();
    }
  }
  command_result() = all_ok ? ExitCode::all_passed : ExitCode::graded_failures;
}

}  // namespace

void setup_datasets(CLI::App& app) {
  auto command = std::make_shared<DatasetsCommand>();
  auto* datasets = app.add_subcommand("datasets", "regenerate or verify the public test data in datasets/");
  datasets->add_option("action", command->action, "generate or verify")->required()->check(CLI::IsMember({"generate", "verify"}));
  datasets->add_option("lab", command->lab, "one lab (default: all that have datasets)");
  datasets->callback([command] { run_datasets(*command); });
}

}  // namespace grader
