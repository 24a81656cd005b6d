// code_facts.h: the inspect stage as the pipeline uses it. After the build, the submission's objects are read once
// (inspect/facts.h) into CodeFacts; each graded variant's facts are then what its interface function reaches: the
// functions it calls (OpenMP's outlined bodies included) and, in a CUDA lab, the kernels it can launch. The same
// facts of the lab's reference, compiled once per machine and kept in the cache, stand beside them in the report.
//
//   CodeFacts facts = read_code_facts(env, spec, candidate.student_objects, lab.gpu_arch);
//   std::optional<VariantFacts> unrolled = variant_facts(facts, "unrolled");
//   fact_variables(*unrolled).at("vector_bits")   // 256
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "build/build.h"
#include "core/environment.h"
#include "inspect/facts.h"
#include "spec/expr.h"
#include "spec/lab_spec.h"

namespace grader {

struct CodeFacts {
  bool cuda = false;
  std::string gpu_arch;  // "sm_90": what ptxas compiled the PTX for
  CpuFacts cpu;          // a CPU lab's functions; a CUDA lab's host code
  std::vector<Kernel> kernels;  // a CUDA lab's kernels
  std::string unavailable;      // why the facts could not be read (no objdump, ptxas failed); empty when they were
  double seconds = 0;           // what reading them cost

  bool read() const { return unavailable.empty(); }
  GpuFacts gpu() const { return {kernels, cpu}; }
};

// Reads the facts of `objects` (and, in a CUDA lab, of the PTX nvcc kept beside them). Never throws: a tool that is
// missing or fails leaves `unavailable` saying so.
CodeFacts read_code_facts(const Environment& env, const LabSpec& spec, const std::vector<std::filesystem::path>& objects,
                          const std::string& gpu_arch);

// The facts of the lab's reference (reference/<lab>/), compiled with the lab's flags like a submission and kept in
// the cache per lab build; `unavailable` says why where there is no reference (a student release) or it does not
// build.
CodeFacts reference_code_facts(const Environment& env, const LabSpec& spec, const LabBuild& lab);

// The interface function that implements `variant`, among the submission's global functions (the link policy has
// made every other one local): the one named `variant`, else the one whose name ends in "_<variant>" (the shortest
// of several: "blocked" is matmul_blocked, not matmul_register_blocked), else the one whose name holds
// "_<variant>_" or starts with "<variant>_". Kernels and their host stubs are never a variant's function. Empty when
// none or several match.
std::string variant_function(const CodeFacts& facts, const std::string& variant);

// What one variant's code does: its function and everything that function reaches.
struct VariantFacts {
  std::string variant;
  std::string function;                  // the interface function's symbol
  std::vector<const CpuFunction*> reached;  // itself first
  FpMix fp;                              // all the arithmetic of what it reaches
  std::optional<CpuLoop> hot_loop;       // the innermost loop with the most floating-point arithmetic
  int openmp_regions = 0;
  std::vector<const Kernel*> kernels;    // CUDA: the kernels it can launch
  std::string gpu_arch;
};

// Nothing when the variant's function is not found; points into `facts`, which must outlive it.
std::optional<VariantFacts> variant_facts(const CodeFacts& facts, const std::string& variant);

// The variant's facts as numbers, named as inspect/fact_list.h lists them, for lab.toml's hint conditions and step
// rules: "vector_bits", "fma", "accumulators", ... for CPU code; "registers", "shuffles", "global_load_bits", ... for
// kernels (summed over the kernels it launches, or their most where a sum means nothing). A fact that cannot be read
// (no hot loop, no kernel) is left out, so a condition that names it does not hold.
Variables fact_variables(const VariantFacts& facts);

}  // namespace grader
