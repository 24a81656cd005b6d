// call_graph.cpp: what CpuFacts answers about its functions (inspect/facts.h): finding one by symbol or by name,
// what it reaches through calls, tail jumps and taken addresses, and the hot loop of all that.
#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <memory>
#include <set>

#include "inspect/facts.h"
#include "inspect/x86_instruction.h"

namespace grader {

int FpMix::widest_bits() const {
  if (packed512 > 0) return 512;
  if (packed256 > 0) return 256;
  if (packed128 > 0) return 128;
  return scalar > 0 ? 64 : 0;
}

FpMix& FpMix::operator+=(const FpMix& other) {
  scalar += other.scalar;
  packed128 += other.packed128;
  packed256 += other.packed256;
  packed512 += other.packed512;
  fma += other.fma;
  fma_scalar += other.fma_scalar;
  return *this;
}

std::string demangle(const std::string& symbol) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> readable(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
  if (status == 0 && readable) return readable.get();
  // "_Z3parPdl._omp_fn.0": the outlined body of an OpenMP region keeps its parent's name before the dot.
  if (const auto dot = symbol.find('.'); dot != std::string::npos && dot > 0) {
    const std::string parent = symbol.substr(0, dot);
    std::unique_ptr<char, void (*)(void*)> outer(abi::__cxa_demangle(parent.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && outer) return std::string(outer.get()) + " [" + symbol.substr(dot + 1) + "]";
  }
  return symbol;
}

std::string plain_name(const std::string& symbol) {
  std::string name = demangle(symbol);
  // Cut the parameter list: the first '(' outside template brackets that does not open "(anonymous namespace)".
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0 && i > 0 && name.compare(i, 21, "(anonymous namespace)") != 0) {
      name.erase(i);
      break;
    }
  }
  // A return type before the name (templates): "void f<int>" -> "f<int>"; "(anonymous namespace)::k" keeps its
  // parenthesised space.
  depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == '>' || name[i] == ')') ++depth;
    if (name[i] == '<' || name[i] == '(') --depth;
    if (name[i] == ' ' && depth == 0) return name.substr(i + 1);
  }
  return name;
}

const CpuFunction* CpuFacts::find(std::string_view symbol) const {
  for (const auto& function : functions)
    if (function.symbol == symbol) return &function;
  for (const auto& function : functions)
    if (std::find(function.aliases.begin(), function.aliases.end(), symbol) != function.aliases.end()) return &function;
  return nullptr;
}

const CpuFunction* CpuFacts::find_by_name(std::string_view name) const {
  // A clone (an OpenMP region's body "f._omp_fn.0", a cold part "f.cold") has its parent's name: the parent first.
  for (const auto& function : functions)
    if (function.symbol.find('.') == std::string::npos && plain_name(function.symbol) == name) return &function;
  for (const auto& function : functions)
    if (plain_name(function.symbol) == name) return &function;
  for (const auto& function : functions)
    for (const auto& alias : function.aliases)
      if (plain_name(alias) == name) return &function;
  return nullptr;
}

const CpuData* CpuFacts::find_data(std::string_view key) const {
  for (const auto& place : data)
    if (place.key == key) return &place;
  return nullptr;
}

std::vector<std::string> CpuFacts::reachable_symbols(std::string_view symbol) const {
  std::vector<std::string> order{std::string(symbol)};
  std::set<std::string> seen{std::string(symbol)};
  std::deque<std::string> queue{std::string(symbol)};
  auto visit = [&](const std::string& target) {
    if (!seen.insert(target).second) return;
    queue.push_back(target);
    if (find_data(target) == nullptr) order.push_back(target);
  };
  while (!queue.empty()) {
    const std::string next = queue.front();
    queue.pop_front();
    if (const CpuFunction* function = find(next)) {
      for (const auto* list : {&function->calls, &function->references, &function->data})
        for (const auto& target : *list) visit(target);
    } else if (const CpuData* place = find_data(next)) {
      for (const auto& target : place->points_to) visit(target);
    }
  }
  return order;
}

std::vector<const CpuFunction*> CpuFacts::reachable(std::string_view symbol) const {
  std::vector<const CpuFunction*> reached;
  for (const auto& name : reachable_symbols(symbol))
    if (const CpuFunction* function = find(name);
        function != nullptr && std::find(reached.begin(), reached.end(), function) == reached.end())
      reached.push_back(function);
  return reached;
}

std::optional<CpuLoop> CpuFacts::hot_loop(std::string_view symbol) const {
  std::optional<CpuLoop> hottest;
  for (const CpuFunction* function : reachable(symbol))
    for (const auto& loop : function->loops)
      if (!hottest || hotter(loop, *hottest)) hottest = loop;
  return hottest;
}

}  // namespace grader
