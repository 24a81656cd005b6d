#include "steps/step_code.h"

#include <algorithm>

#include "build/build.h"
#include "inspect/facts.h"

namespace grader {

namespace {

// Facts of one kernel, in known_step_facts() names (spec/spec_steps.cpp lists the same names with their meanings).
std::set<std::string> facts_of(const Kernel& kernel) {
  std::set<std::string> facts;
  if (kernel.shared_loads + kernel.shared_stores > 0 || kernel.shared_bytes > 0) facts.insert("shared_memory");
  if (kernel.barriers > 0) facts.insert("barriers");
  if (kernel.shuffles > 0) facts.insert("shuffles");
  if (kernel.atomics > 0) facts.insert("atomics");
  if (kernel.global_loads.v2 + kernel.global_loads.v4 > 0) facts.insert("vector_loads");
  if (kernel.tensor > 0) facts.insert("tensor_core");
  if (kernel.tf32_conversions > 0) facts.insert("tf32");
  return facts;
}

}  // namespace

SubmissionCode submission_code(const CpuFacts& host) {
  SubmissionCode code;
  // By plain name ("matmul_ijk"), as lab.toml names a step's function; calls and taken addresses alike are edges
  // (a function handed to another by address runs as surely as one called).
  for (const auto& function : host.functions) {
    FunctionCode& entry = code.functions[plain_name(function.symbol)];
    entry.hash = function.code_hash;
    for (const auto& callee : function.calls) entry.calls.insert(plain_name(callee));
    for (const auto& taken : function.references) entry.calls.insert(plain_name(taken));
  }
  return code;
}

SubmissionCode submission_code(const GpuFacts& gpu) {
  SubmissionCode code = submission_code(gpu.host);
  for (const auto& kernel : gpu.kernels) code.kernels[plain_name(kernel.symbol)].facts = facts_of(kernel);
  for (const auto& function : gpu.host.functions)
    for (const Kernel* kernel : gpu.launched_by(function.symbol))
      code.functions[plain_name(function.symbol)].launches.insert(plain_name(kernel->symbol));
  return code;
}

}  // namespace grader

namespace grader {

std::optional<SubmissionCode> read_submission_code(const Environment& env, const LabSpec& spec,
                                                   const std::vector<std::filesystem::path>& objects,
                                                   std::string& why_not) {
  try {
    if (!spec.gpu) return submission_code(read_cpu_facts(objects));
    // The PTX nvcc kept beside each object (build/build.cpp); ptxas sits beside nvcc.
    std::vector<std::filesystem::path> ptx;
    for (const auto& object : objects) {
      std::error_code ec;
      for (const auto& entry : std::filesystem::directory_iterator(object.parent_path(), ec))
        if (entry.path().extension() == ".ptx" &&
            std::find(ptx.begin(), ptx.end(), entry.path()) == ptx.end())
          ptx.push_back(entry.path());
    }
    if (ptx.empty()) {
      why_not = "the build kept no PTX of the submission";
      return std::nullopt;
    }
    if (!env.nvcc) {
      why_not = "no CUDA toolkit";
      return std::nullopt;
    }
    const std::string ptxas = (std::filesystem::path(*env.nvcc).parent_path() / "ptxas").string();
    return submission_code(read_gpu_facts(ptx, objects, detect_gpu_arch().empty() ? "sm_90" : detect_gpu_arch(), ptxas));
  } catch (const InspectError& error) {
    why_not = error.what();
    return std::nullopt;
  }
}

}  // namespace grader
