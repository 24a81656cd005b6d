#include "steps/substitution.h"

#include <stdexcept>

namespace grader {

namespace {

// A symbol the assembler takes as it is: a mangled C++ name or a C name, nothing that could end the directive.
bool plain_symbol(const std::string& symbol) {
  if (symbol.empty()) return false;
  for (char c : symbol)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$'))
      return false;
  return true;
}

const std::string& symbol_of(const std::map<std::string, std::string>& symbols, const std::string& function) {
  const auto found = symbols.find(function);
  if (found == symbols.end() || !plain_symbol(found->second))
    throw std::invalid_argument("no linker symbol was found for " + function + " in the reference's objects");
  return found->second;
}

// One step's symbol, defined as a jump to the best function's. Host code only: nvcc also compiles a .cu for the
// device, where this means nothing.
std::string forwarder(const std::string& symbol, const std::string& best) {
  return "#if !defined(__CUDA_ARCH__)\n"
         "__asm__(\".text\\n.globl " + symbol + "\\n.type " + symbol + ", @function\\n" + symbol + ":\\n"
#if defined(__aarch64__)
         "  b " + best +
#else
         "  jmp " + best +
#endif
         "\\n.size " + symbol + ", .-" + symbol + "\\n\");\n#endif\n";
}

}  // namespace

std::string replaced_name(const std::string& function) { return "grader_selftest_replaced_" + function; }

std::map<std::string, std::string> substituted_sources(const StepsSpec& steps, const std::map<std::string, std::string>& files,
                                                       const std::map<std::string, std::string>& symbols,
                                                       const std::string& best_file) {
  if (files.count(best_file) == 0) throw std::invalid_argument("the best function's file " + best_file + " is not a student file");
  const std::string& best = symbol_of(symbols, steps.best);
  std::string renames = "// grader selftest: the best function stands in for every step (steps/substitution.h).\n";
  std::string forwarders = "\n// grader selftest: every step jumps to " + steps.best + ".\n";
  for (const auto& step : steps.steps) {
    renames += "#define " + step.function + " " + replaced_name(step.function) + "\n";
    forwarders += forwarder(symbol_of(symbols, step.function), best);
  }
  std::map<std::string, std::string> out;
  for (const auto& [name, text] : files) {
    out[name] = renames + "#line 1\n" + text;
    if (name == best_file) out[name] += forwarders;
  }
  return out;
}

}  // namespace grader
