#include "steps/step_code.h"

#include <map>

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

// A kernel by its whole demangled name: a template's instances differ only in their arguments
// ("multi_element_kernel<true>(float const*, long, float*)"), which a plain name may drop.
std::string kernel_name(const std::string& symbol) {
  const std::string name = demangle(symbol);
  return name.rfind("(anonymous namespace)::", 0) == 0 ? name.substr(23) : name;
}

// A global function (the link policy left only the lab's API global) by its plain name ("matmul_ijk"), as lab.toml
// names a step's function; every other by its symbol, since two local helpers, or two instances of one template,
// can share a plain name.
std::map<std::string, std::string> keys_of(const CpuFacts& host) {
  std::map<std::string, std::string> keys;
  for (const auto& function : host.functions) keys[function.symbol] = function.global ? plain_name(function.symbol) : function.symbol;
  return keys;
}

std::string key_of(const std::map<std::string, std::string>& keys, const std::string& symbol) {
  const auto found = keys.find(symbol);
  return found != keys.end() ? found->second : symbol;  // not defined here: the C library, the CUDA runtime
}

// Calls and taken addresses alike are edges: a function handed to another by address runs as surely as one called.
SubmissionCode host_code(const CpuFacts& host, const std::map<std::string, std::string>& keys) {
  SubmissionCode code;
  for (const auto& function : host.functions) {
    FunctionCode& entry = code.functions[key_of(keys, function.symbol)];
    entry.hash = function.code_hash;
    for (const auto& callee : function.calls) entry.calls.insert(key_of(keys, callee));
    for (const auto& taken : function.references) entry.calls.insert(key_of(keys, taken));
  }
  return code;
}

}  // namespace

SubmissionCode submission_code(const CodeFacts& facts) {
  const auto keys = keys_of(facts.cpu);
  SubmissionCode code = host_code(facts.cpu, keys);
  if (!facts.cuda) return code;
  const GpuFacts gpu = facts.gpu();
  for (const auto& kernel : gpu.kernels) code.kernels[kernel_name(kernel.symbol)].facts = facts_of(kernel);
  for (const auto& function : gpu.host.functions)
    for (const Kernel* kernel : gpu.launched_by(function.symbol))
      code.functions[key_of(keys, function.symbol)].launches.insert(kernel_name(kernel->symbol));
  return code;
}

}  // namespace grader
