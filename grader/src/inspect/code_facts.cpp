// code_facts.cpp: the inspect stage as the pipeline runs it (inspect/code_facts.h): the submission's facts after
// its build, the reference's from the cache, and one variant's facts as the numbers hints and step rules read.
#include "inspect/code_facts.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <span>
#include <sstream>

#include "build/stage.h"
#include "core/unique_name.h"
#include "data/sha256.h"
#include "inspect/fact_list.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

// nvcc --keep writes <stem>.ptx beside the object <stem>.cu.o (build/build.cpp).
fs::path kept_ptx(const fs::path& object) {
  return object.parent_path() / (fs::path(object.stem()).stem().string() + ".ptx");
}

bool is_cuda_object(const fs::path& object) { return fs::path(object.stem()).extension() == ".cu"; }

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

CodeFacts read_code_facts(const Environment& env, const LabSpec& spec, const std::vector<fs::path>& objects,
                          const std::string& gpu_arch) {
  const auto start = std::chrono::steady_clock::now();
  CodeFacts facts;
  facts.cuda = spec.build.language == "cuda";
  facts.gpu_arch = gpu_arch;
  try {
    if (!facts.cuda) {
      facts.cpu = read_cpu_facts(objects);
    } else {
      if (!env.nvcc) throw InspectError("no nvcc, so no ptxas to read the kernels with");
      std::vector<fs::path> ptx;
      for (const auto& object : objects) {
        if (!is_cuda_object(object)) continue;
        if (!fs::exists(kept_ptx(object))) throw InspectError("nvcc kept no PTX for " + object.filename().string());
        ptx.push_back(kept_ptx(object));
      }
      const std::string ptxas = (fs::path(*env.nvcc).parent_path() / "ptxas").string();
      GpuFacts gpu = read_gpu_facts(ptx, objects, gpu_arch.empty() ? "sm_90" : gpu_arch, ptxas);
      facts.kernels = std::move(gpu.kernels);
      facts.cpu = std::move(gpu.host);
    }
  } catch (const std::exception& error) {
    facts.unavailable = error.what();
  }
  facts.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return facts;
}

CodeFacts reference_code_facts(const Environment& env, const LabSpec& spec, const LabBuild& lab) {
  CodeFacts unavailable;
  unavailable.cuda = spec.build.language == "cuda";
  const fs::path reference = env.root / "reference" / spec.name();
  if (!fs::is_directory(reference)) {
    unavailable.unavailable = "this copy of the course has no reference for " + spec.id + " (a student release)";
    return unavailable;
  }
  // One entry per lab build (compilers and flags) and reference sources: a changed reference is compiled again.
  std::string blob = lab.dir.filename().string() + "\n";
  for (const auto& name : spec.build.student_files)
    blob += name + "\n" + (fs::exists(reference / name) ? file_text(reference / name) : std::string()) + "\n";
  const std::string key = sha256_hex(std::as_bytes(std::span(blob.data(), blob.size()))).substr(0, 16);
  const fs::path entry = env.cache / "facts" / (spec.name() + "-" + key);
  const fs::path objects = entry / "obj-reference";

  if (!fs::exists(entry / "complete")) {
    const fs::path staging = entry.string() + ".tmp-" + unique_suffix();
    std::error_code ec;
    fs::remove_all(staging, ec);
    fs::create_directories(staging / "src");
    const StageResult staged = stage_submission(spec, reference, staging / "src");
    if (staged.verdict != Verdict::passed) {
      fs::remove_all(staging, ec);
      unavailable.unavailable = "the reference could not be staged: " + staged.details;
      return unavailable;
    }
    const CandidateBuild built = compile_candidate(env, spec, lab, staged.sources, staging, {}, "reference");
    if (built.verdict != Verdict::passed) {
      fs::remove_all(staging, ec);
      unavailable.unavailable = "the reference does not compile here";
      return unavailable;
    }
    std::ofstream(staging / "complete") << "ok\n";
    fs::rename(staging, entry, ec);
    if (ec) fs::remove_all(staging, ec);  // another grader kept the same entry first: theirs is read
  }
  std::vector<fs::path> found;
  for (const auto& name : spec.build.student_files) found.push_back(objects / (name + ".o"));
  return read_code_facts(env, spec, found, lab.gpu_arch);
}

std::string variant_function(const CodeFacts& facts, const std::string& variant) {
  std::vector<std::pair<std::string, std::string>> candidates;  // plain name, symbol
  for (const auto& function : facts.cpu.functions) {
    if (!function.global) continue;
    const std::string name = plain_name(function.symbol);
    const bool kernel = std::any_of(facts.kernels.begin(), facts.kernels.end(), [&](const Kernel& k) { return k.symbol == function.symbol; });
    if (kernel || name.rfind("__device_stub_", 0) == 0) continue;
    candidates.emplace_back(name, function.symbol);
  }
  for (const auto& [name, symbol] : candidates)
    if (name == variant) return symbol;
  const auto ends_with = [](const std::string& text, const std::string& tail) {
    return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::vector<std::pair<std::string, std::string>> matches;
  for (const auto& candidate : candidates)
    if (ends_with(candidate.first, "_" + variant)) matches.push_back(candidate);
  if (matches.empty())
    for (const auto& candidate : candidates)
      if (candidate.first.find("_" + variant + "_") != std::string::npos || candidate.first.rfind(variant + "_", 0) == 0)
        matches.push_back(candidate);
  if (matches.empty()) return {};
  std::sort(matches.begin(), matches.end(), [](const auto& a, const auto& b) { return a.first.size() < b.first.size(); });
  if (matches.size() > 1 && matches[0].first.size() == matches[1].first.size()) return {};
  return matches[0].second;
}

std::optional<VariantFacts> variant_facts(const CodeFacts& facts, const std::string& variant) {
  if (!facts.read()) return std::nullopt;
  const std::string function = variant_function(facts, variant);
  if (function.empty()) return std::nullopt;
  VariantFacts result;
  result.variant = variant;
  result.function = function;
  result.gpu_arch = facts.cuda ? (facts.gpu_arch.empty() ? "sm_90" : facts.gpu_arch) : "";
  result.reached = facts.cpu.reachable(function);
  for (const CpuFunction* reached : result.reached) {
    result.fp += reached->fp;
    result.openmp_regions += reached->openmp_regions;
  }
  if (!facts.cuda) result.hot_loop = facts.cpu.hot_loop(function);
  if (facts.cuda) {
    // launched_by reads the host call graph through `facts.cpu`; the kernels it returns are found again in `facts`,
    // which outlives the result.
    const GpuFacts gpu{facts.kernels, facts.cpu};
    for (const Kernel* kernel : gpu.launched_by(function))
      for (const auto& own : facts.kernels)
        if (own.symbol == kernel->symbol) result.kernels.push_back(&own);
  }
  return result;
}

Variables fact_variables(const VariantFacts& facts) {
  Variables v;
  if (facts.gpu_arch.empty()) {
    v["openmp_regions"] = facts.openmp_regions;
    v["functions"] = static_cast<double>(facts.reached.size());
    if (facts.hot_loop) {
      const CpuLoop& loop = *facts.hot_loop;
      v["vector_bits"] = loop.fp.widest_bits();
      v["fp_scalar"] = loop.fp.scalar;
      v["fp_packed"] = loop.fp.packed();
      v["fma"] = loop.fp.fma;
      if (loop.fp.fma > 0) v["loads_per_fma"] = loop.loads_per_fma();
      v["accumulators"] = loop.accumulators;
      v["hot_loop_instructions"] = loop.instructions;
    }
    return v;
  }
  v["kernels"] = static_cast<double>(facts.kernels.size());
  if (facts.kernels.empty()) return v;
  const GpuLimits limits = limits_for_arch(facts.gpu_arch);
  double registers = 0, spills = 0, shared = 0, load_bits = 0, store_bits = 0, occupancy = 1;
  double shared_loads = 0, shared_stores = 0, barriers = 0, shuffles = 0, atomics = 0, fp32 = 0, fp64 = 0, tensor = 0, tf32 = 0;
  double scalar = 0, v2 = 0, v4 = 0;
  bool registers_known = true;
  for (const Kernel* k : facts.kernels) {
    registers_known = registers_known && k->registers >= 0;
    registers = std::max(registers, static_cast<double>(k->registers));
    spills = std::max(spills, static_cast<double>(k->spill_store_bytes + k->spill_load_bytes));
    shared = std::max(shared, static_cast<double>(k->shared_bytes));
    load_bits = std::max(load_bits, static_cast<double>(k->global_loads.widest_bits));
    store_bits = std::max(store_bits, static_cast<double>(k->global_stores.widest_bits));
    shared_loads += k->shared_loads;
    shared_stores += k->shared_stores;
    barriers += k->barriers;
    shuffles += k->shuffles;
    atomics += k->atomics;
    fp32 += k->fp32;
    fp64 += k->fp64;
    tensor += k->tensor;
    tf32 += k->tf32_conversions;
    scalar += k->global_loads.scalar;
    v2 += k->global_loads.v2;
    v4 += k->global_loads.v4;
    // The launch's block size is the host code's choice, at run time: a kernel that declares none is taken at 256.
    const int block = k->max_threads > 0 ? k->max_threads : 256;
    occupancy = std::min(occupancy, theoretical_occupancy(k->registers, k->shared_bytes, block, limits).fraction);
  }
  if (registers_known) {
    v["registers"] = registers;
    v["spill_bytes"] = spills;
    v["shared_bytes"] = shared;
    v["occupancy"] = occupancy;
  }
  v["shared_loads"] = shared_loads;
  v["shared_stores"] = shared_stores;
  v["barriers"] = barriers;
  v["shuffles"] = shuffles;
  v["atomics"] = atomics;
  v["global_loads_scalar"] = scalar;
  v["global_loads_v2"] = v2;
  v["global_loads_v4"] = v4;
  v["global_load_bits"] = load_bits;
  v["global_store_bits"] = store_bits;
  v["fp32"] = fp32;
  v["fp64"] = fp64;
  v["tensor"] = tensor;
  v["tf32"] = tf32;
  return v;
}

}  // namespace grader
