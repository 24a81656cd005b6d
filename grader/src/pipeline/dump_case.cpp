#include "pipeline/dump_case.h"

#include <stdlib.h>

#include "build/build.h"
#include "data/manifest.h"
#include "data/npy.h"
#include "pipeline/grade.h"
#include "pipeline/grading.h"
#include "pipeline/launch.h"
#include "run/worker.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

struct FoundCase {
  const CorrectnessItem* item = nullptr;
  const CaseSpec* c = nullptr;
};

FoundCase find_case(const LabSpec& spec, const std::string& which, bool include_hidden) {
  std::vector<FoundCase> found;
  std::string choices;
  for (const auto& item : spec.correctness)
    for (const auto& c : item.cases) {
      if (c.visibility != Visibility::visible && !include_hidden) continue;
      choices += "\n  " + item.name + "/" + c.name;
      if (which == c.name || which == item.name + "/" + c.name) found.push_back({&item, &c});
    }
  if (found.size() == 1) return found.front();
  if (found.empty()) throw UnknownCase("no case '" + which + "' in " + spec.name() + "; its cases are:" + choices);
  std::string same;
  for (const auto& f : found) same += "\n  " + f.item->name + "/" + f.c->name;
  throw UnknownCase("several items have a case '" + which + "'; name one as ITEM/CASE:" + same);
}

}  // namespace

DumpedCase dump_case(const Environment& env, const LabSpec& spec, const std::string& which, std::uint64_t run_seed,
                     bool include_hidden, const fs::path& into) {
  const FoundCase found = find_case(spec, which, include_hidden);
  DumpedCase dumped{found.item->name, found.c->name, {}};
  fs::create_directories(into);

  if (!found.c->dataset.empty()) {
    Manifest manifest = load_manifest(env.root / "datasets" / spec.name());
    const DatasetEntry* entry = manifest.find(found.c->dataset);
    if (entry == nullptr) throw std::runtime_error("no dataset '" + found.c->dataset + "' in the lab's manifest");
    auto copy = [&](const DatasetFile& file, const std::string& prefix) {
      const fs::path to = into / (prefix + file.array + ".npy");
      fs::copy_file(manifest.dir / file.file, to, fs::copy_options::overwrite_existing);
      dumped.files.push_back(to);
    };
    for (const auto& file : entry->inputs) copy(file, "");
    for (const auto& file : entry->expected) copy(file, "expected.");
    return dumped;
  }

  // The same parameters and seed as the grading's (pipeline/correctness.cpp), so --seed replays them.
  Variables machine = pipeline::machine_variables();
  if (const auto calibration = load_calibration(env)) pipeline::add_calibrated_scaling(machine, *calibration);
  const Variables params = pipeline::case_params(found.c->params, machine);
  const std::uint64_t seed = derive_seed(run_seed, found.item->name + "/" + found.c->name);

  const LabBuild lab = build_lab(env, spec);
  std::string pattern = (fs::temp_directory_path() / ("grader-dump-" + spec.name() + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a work directory");
  const fs::path workdir = pattern;
  fs::permissions(workdir, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec |
                               fs::perms::group_read | fs::perms::group_exec);
  fs::copy_file(lab.judge, workdir / "judge");
  Worker judge(worker_launch_options(spec, workdir / "judge", workdir), "judge", WorkerCode::lab);
  std::vector<std::string> variants;
  std::vector<Array> inputs, outputs;
  double seconds = 0;
  const double timeout = spec.limits.wall_seconds;
  const bool ok = judge.hello(variants, 60) && judge.setup(params, seed, {}, timeout) && judge.inputs(inputs, timeout) &&
                  judge.run(found.item->variants.front(), timeout, outputs, seconds);
  judge.quit();
  std::error_code ignored;
  if (!ok) {
    fs::remove_all(workdir, ignored);
    throw std::runtime_error("the lab's judge failed on this case: " + judge.failure().details);
  }
  for (const auto& array : inputs) {
    dumped.files.push_back(into / (array.name + ".npy"));
    write_npy(dumped.files.back(), array);
  }
  for (const auto& array : outputs) {
    dumped.files.push_back(into / ("expected." + array.name + ".npy"));
    write_npy(dumped.files.back(), array);
  }
  fs::remove_all(workdir, ignored);
  return dumped;
}

}  // namespace grader
