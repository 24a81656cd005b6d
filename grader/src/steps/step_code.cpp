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
// can share a plain name. A second name at a function's address (an alias, an ifunc's name on its resolver) is keyed
// to the function itself, so an edge to either name lands on one function.
std::map<std::string, std::string> keys_of(const CpuFacts& host) {
  std::map<std::string, std::string> keys;
  for (const auto& function : host.functions) keys[function.symbol] = function.global ? plain_name(function.symbol) : function.symbol;
  for (const auto& function : host.functions)
    for (const auto& alias : function.aliases) keys.emplace(alias, keys[function.symbol]);
  return keys;
}

std::string key_of(const std::map<std::string, std::string>& keys, const std::string& symbol) {
  const auto found = keys.find(symbol);
  return found != keys.end() ? found->second : symbol;  // not defined here: the C library, the CUDA runtime, data
}

// Calls and taken addresses alike are edges: a function handed to another by address runs as surely as one called.
SubmissionCode host_code(const CpuFacts& host, const std::map<std::string, std::string>& keys) {
  SubmissionCode code;
  for (const auto& function : host.functions) {
    const std::string key = key_of(keys, function.symbol);
    FunctionCode& entry = code.functions[key];
    entry.hash = function.code_hash;
    entry.shape = function.shape_hash;
    for (const auto& callee : function.calls) entry.calls.insert(key_of(keys, callee));
    for (const auto& taken : function.references) entry.calls.insert(key_of(keys, taken));
    entry.data.insert(function.data.begin(), function.data.end());
    if (!function.indirect_branches.empty()) entry.indirect = function.indirect_branches.front();
    // Each second name as the lab.toml would write it: "matmul_best" for "_Z11matmul_bestPKdS0_Pdlll".
    for (const auto& alias : function.aliases) code.other_names[plain_name(alias)] = key;
    // "_Z11matmul_bestPKdS0_Pdlll.part.0" is part of matmul_best.
    if (const auto dot = function.symbol.find('.'); dot != std::string::npos && dot > 0)
      if (const CpuFunction* parent = host.find(function.symbol.substr(0, dot)); parent != nullptr && parent != &function)
        code.part_of[key] = key_of(keys, parent->symbol);
  }
  for (const auto& place : host.data) {
    DataCode& entry = code.data[place.key];
    entry.name = place.name;
    for (const auto& target : place.points_to) entry.points_to.insert(key_of(keys, target));
  }
  for (const auto& taken : host.taken) code.address_taken.emplace(key_of(keys, taken.function), taken.where);
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
