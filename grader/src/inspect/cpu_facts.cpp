// cpu_facts.cpp: facts of x86-64 object code, read from `objdump -d -l -r -t --no-show-raw-insn` (inspect/facts.h).
// objdump's AT&T syntax is read line by line: the symbol table gives every function (and the symbols folded onto
// one address), the disassembly its instructions, and the relocation lines under an instruction what it calls or
// takes the address of. The assembler resolves a call to a function of the same section itself, leaving no
// relocation: such a call is read from the target address objdump prints.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <span>
#include <sstream>

#include "core/tool.h"
#include "data/sha256.h"
#include "inspect/facts.h"
#include "inspect/x86_instruction.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

std::uint64_t hex(std::string_view text) {
  std::uint64_t value = 0;
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) break;
    value = value * 16 + static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10));
  }
  return value;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

// One symbol table line: "00000000000000c0 g     F .text\t0000000000000069 .hidden _Z10scalar_dotPKdS0_l".
struct SymbolLine {
  std::uint64_t address = 0;
  bool global = false;
  bool function = false;
  std::string section;
  std::uint64_t size = 0;
  std::string name;
};

std::optional<SymbolLine> read_symbol_line(std::string_view line) {
  // 16 hex digits, a space, 7 flag characters, a space, the section, a tab, the size, a space, the name.
  if (line.size() < 26 || !std::isxdigit(static_cast<unsigned char>(line[0]))) return std::nullopt;
  const auto space = line.find(' ');
  if (space == std::string_view::npos || line.size() < space + 9) return std::nullopt;
  SymbolLine symbol;
  symbol.address = hex(line.substr(0, space));
  const std::string_view flags = line.substr(space + 1, 7);
  symbol.global = flags[0] == 'g' || flags[0] == 'u' || flags[1] == 'w';
  symbol.function = flags[6] == 'F';
  const std::string_view rest = line.substr(space + 9);
  const auto tab = rest.find('\t');
  if (tab == std::string_view::npos) return std::nullopt;
  symbol.section = std::string(rest.substr(0, tab));
  std::string_view tail = rest.substr(tab + 1);
  const auto size_end = tail.find(' ');
  if (size_end == std::string_view::npos) return std::nullopt;
  symbol.size = hex(tail.substr(0, size_end));
  tail = trim(tail.substr(size_end + 1));
  for (std::string_view visibility : {".hidden ", ".protected ", ".internal "})
    if (tail.substr(0, visibility.size()) == visibility) tail = trim(tail.substr(visibility.size()));
  symbol.name = std::string(tail);
  return symbol;
}

// One relocation line under an instruction: "\t\t\t9c: R_X86_64_PLT32\tGOMP_parallel-0x4".
struct Relocation {
  std::string type;
  std::string symbol;   // "GOMP_parallel", ".text", ".rodata.cst8"
  std::int64_t addend = 0;
};

Relocation read_relocation(std::string_view text) {
  Relocation relocation;
  const auto tab = text.find('\t');
  relocation.type = std::string(trim(text.substr(0, tab)));
  std::string_view target = tab == std::string_view::npos ? std::string_view() : trim(text.substr(tab + 1));
  // The addend follows the last + or - that is not the symbol's first character.
  auto sign = target.find_last_of("+-");
  if (sign != std::string_view::npos && sign > 0 && target.substr(sign + 1, 2) == "0x") {
    const std::int64_t magnitude = static_cast<std::int64_t>(hex(target.substr(sign + 3)));
    relocation.addend = target[sign] == '-' ? -magnitude : magnitude;
    target = target.substr(0, sign);
  }
  relocation.symbol = std::string(target);
  return relocation;
}

// A target objdump printed after a branch or as a comment: "140 <_Z8four_dotPKdS0_l>", "# 0 <_Z3parPdl._omp_fn.0>".
struct PrintedTarget {
  std::uint64_t address = 0;
  bool present = false;
};

PrintedTarget printed_target(std::string_view operands) {
  PrintedTarget target;
  const auto angle = operands.find(" <");
  if (angle == std::string_view::npos) return target;
  auto start = operands.find_last_of(" \t#", angle - 1);
  start = start == std::string_view::npos ? 0 : start + 1;
  const std::string_view address = operands.substr(start, angle - start);
  if (address.empty() || !std::all_of(address.begin(), address.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
    return target;
  target.address = hex(address);
  target.present = true;
  return target;
}

struct RawInstruction {
  std::uint64_t address = 0;
  std::string text;  // "vfmadd231pd (%rsi,%rax,8),%ymm1,%ymm0"
  std::vector<Relocation> relocations;
  std::string source;  // "matvec.cpp:42", from objdump -l where the object has line tables
};

// A line objdump -l prints above the instructions of one source line: "/work/src/matvec.cpp:42", perhaps with
// " (discriminator 3)" after it. As "matvec.cpp:42": the folder is the build's, which the report has no use for.
std::optional<std::string> read_source_location(std::string_view line) {
  if (line.empty() || std::isspace(static_cast<unsigned char>(line.front()))) return std::nullopt;
  if (const auto discriminator = line.find(" (discriminator "); discriminator != std::string_view::npos)
    line = line.substr(0, discriminator);
  const auto colon = line.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == line.size()) return std::nullopt;
  const std::string_view number = line.substr(colon + 1);
  if (!std::all_of(number.begin(), number.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return std::nullopt;
  std::string_view path = line.substr(0, colon);
  if (const auto slash = path.rfind('/'); slash != std::string_view::npos) path.remove_prefix(slash + 1);
  if (path.empty()) return std::nullopt;
  return std::string(path) + ":" + std::string(number);
}

struct RawFunction {
  std::string symbol;
  std::string section;
  std::uint64_t address = 0;
  std::vector<RawInstruction> instructions;
};

bool is_omp_region_call(const std::string& symbol) {
  return symbol.rfind("GOMP_parallel", 0) == 0 || symbol.rfind("GOMP_teams", 0) == 0;
}

void add_once(std::vector<std::string>& list, const std::string& value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// Whole-object context: which function lies where, to resolve section-relative and assembler-resolved targets.
class ObjectReader {
 public:
  ObjectReader(std::vector<SymbolLine> symbols, std::string object) : symbols_(std::move(symbols)), object_(std::move(object)) {}

  // The function that starts at `address` of `section`; empty when none does.
  std::string function_at(const std::string& section, std::uint64_t address) const {
    for (const auto& symbol : symbols_)
      if (symbol.function && symbol.section == section && symbol.address == address) return symbol.name;
    return {};
  }

  CpuFunction read(const RawFunction& raw) const;

 private:
  // The symbol a relocation lands on: itself for a named symbol, the function at section+offset for a section
  // symbol (a call's PC-relative addend is the target less 4), empty for data or local labels.
  std::string relocation_target(const Relocation& relocation, bool branch) const {
    const std::string& symbol = relocation.symbol;
    if (symbol.rfind(".L", 0) == 0) return {};
    if (!symbol.empty() && symbol[0] == '.') {
      const bool pc_relative = relocation.type.find("PC32") != std::string::npos || relocation.type.find("PLT32") != std::string::npos;
      const std::int64_t offset = relocation.addend + (pc_relative ? 4 : 0);
      if (offset < 0) return {};
      std::string found = function_at(symbol, static_cast<std::uint64_t>(offset));
      (void)branch;
      return found;
    }
    return symbol;
  }

  std::vector<SymbolLine> symbols_;
  std::string object_;
};

CpuFunction ObjectReader::read(const RawFunction& raw) const {
  CpuFunction function;
  function.symbol = raw.symbol;
  function.name = demangle(raw.symbol);
  function.object = fs::path(object_).filename().string();
  function.section = raw.section;
  function.address = raw.address;
  for (const auto& symbol : symbols_) {
    if (!symbol.function || symbol.section != raw.section || symbol.address != raw.address) continue;
    if (symbol.name == raw.symbol) {
      function.global = symbol.global;
      function.size = symbol.size;
    } else {
      function.aliases.push_back(symbol.name);
    }
  }
  const std::uint64_t start = raw.address;
  const std::uint64_t end = function.size > 0 ? start + function.size
                                              : (raw.instructions.empty() ? start : raw.instructions.back().address + 1);

  std::vector<X86Instruction> decoded;
  std::string normalised;  // for the code hash
  struct Branch {
    std::uint64_t from, to;
  };
  std::vector<Branch> backward;
  for (const auto& instruction : raw.instructions) {
    X86Instruction x = decode_x86(instruction.text);
    x.address = instruction.address;
    x.source = instruction.source;
    if (x.padding) continue;
    decoded.push_back(x);
    ++function.instructions;
    function.fp += x.fp;

    const PrintedTarget target = printed_target(x.operands);
    const bool branch = x.is_jump || x.is_call;
    std::string hashed = x.mnemonic + " " + normalise_operands(x.operands);
    bool resolved_by_relocation = false;
    for (const auto& relocation : instruction.relocations) {
      std::string landed = relocation_target(relocation, branch);
      if (!landed.empty()) {
        resolved_by_relocation = true;
        if (branch) {
          if (landed != raw.symbol || x.is_call) add_once(function.calls, landed);
          if (x.is_call && is_omp_region_call(landed)) ++function.openmp_regions;
        } else if (landed != raw.symbol) {
          add_once(function.references, landed);
        }
      }
      const std::string named = landed.empty() ? relocation.symbol : landed;
      hashed += " @" + (named == raw.symbol ? std::string("<self>") : named);
    }
    if (!resolved_by_relocation && target.present && instruction.relocations.empty()) {
      const bool inside = target.address >= start && target.address < end;
      if (inside && target.address != start) {
        hashed += " L" + std::to_string(target.address - start);
        // A loop closes with a conditional branch back to its start; a backward jmp is the compiler laying out
        // blocks (a remainder, a schedule's setup) more often than a loop.
        const bool conditional = x.is_jump && x.mnemonic != "jmp";
        if (conditional && target.address <= instruction.address) backward.push_back({instruction.address, target.address});
      } else {
        const std::string landed = function_at(raw.section, target.address);
        if (!landed.empty()) {
          if (branch) {
            if (landed != raw.symbol || x.is_call) add_once(function.calls, landed);
          } else if (landed != raw.symbol) {
            add_once(function.references, landed);
          }
          hashed += " @" + (landed == raw.symbol ? std::string("<self>") : landed);
        }
      }
    }
    normalised += hashed + "\n";
  }
  function.code_hash = sha256_hex(std::as_bytes(std::span(normalised.data(), normalised.size()))).substr(0, 16);

  // Innermost loops: a backward branch's range that holds no other loop's range.
  std::sort(backward.begin(), backward.end(), [](const Branch& a, const Branch& b) { return a.to != b.to ? a.to < b.to : a.from < b.from; });
  backward.erase(std::unique(backward.begin(), backward.end(), [](const Branch& a, const Branch& b) { return a.to == b.to && a.from == b.from; }),
                 backward.end());
  for (const auto& loop : backward) {
    const bool holds_another = std::any_of(backward.begin(), backward.end(), [&](const Branch& other) {
      return &other != &loop && other.to >= loop.to && other.from <= loop.from;
    });
    if (holds_another) continue;
    std::vector<const X86Instruction*> body;
    for (const auto& x : decoded)
      if (x.address >= loop.to && x.address <= loop.from) body.push_back(&x);
    CpuLoop read = summarise_loop(body);
    read.start = loop.to - start;
    read.end = loop.from - start;
    read.function = raw.symbol;
    function.loops.push_back(std::move(read));
  }
  for (const auto& loop : function.loops)
    if (!function.hot_loop || hotter(loop, *function.hot_loop)) function.hot_loop = loop;
  return function;
}

}  // namespace

CpuFacts parse_objdump(std::string_view text, const std::string& object) {
  std::vector<SymbolLine> symbols;
  std::vector<RawFunction> raw;
  std::string section;
  std::string source;  // the source line the instructions below come from (objdump -l)
  bool in_symbols = false;
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line == "SYMBOL TABLE:") {
      in_symbols = true;
      continue;
    }
    if (in_symbols) {
      if (trim(line).empty()) {
        in_symbols = false;
        continue;
      }
      if (auto symbol = read_symbol_line(line)) symbols.push_back(std::move(*symbol));
      continue;
    }
    if (line.rfind("Disassembly of section ", 0) == 0) {
      section = std::string(line.substr(23, line.size() - 24));  // "...section .text:" -> ".text"
      continue;
    }
    if (line.empty()) continue;
    // "0000000000000040 <name>:"
    if (std::isxdigit(static_cast<unsigned char>(line[0])) && line.size() > 4 && line.substr(line.size() - 2) == ">:") {
      const auto angle = line.find(" <");
      if (angle == std::string_view::npos) continue;
      raw.push_back({std::string(line.substr(angle + 2, line.size() - angle - 4)), section, hex(line.substr(0, angle)), {}});
      source.clear();
      continue;
    }
    if (raw.empty()) continue;
    if (auto location = read_source_location(line)) {
      source = std::move(*location);
      continue;
    }
    const std::string_view body = trim(line);
    const auto colon = body.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    const std::string_view address = body.substr(0, colon);
    if (!std::all_of(address.begin(), address.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); })) continue;
    const std::string_view rest = trim(body.substr(colon + 1));
    if (rest.rfind("R_", 0) == 0) {  // a relocation of the instruction above
      if (!raw.back().instructions.empty()) raw.back().instructions.back().relocations.push_back(read_relocation(rest));
      continue;
    }
    if (rest.empty() || rest == "...") continue;
    raw.back().instructions.push_back({hex(address), std::string(rest), {}, source});
  }

  CpuFacts facts;
  const ObjectReader reader(symbols, object);
  for (const auto& function : raw) {
    // objdump also heads a block for a non-function symbol in code (a label the source named); its instructions
    // belong to the function before it, whose size the symbol table gives. Only functions are kept.
    const bool is_function = std::any_of(symbols.begin(), symbols.end(), [&](const SymbolLine& symbol) {
      return symbol.function && symbol.name == function.symbol && symbol.section == function.section;
    });
    if (is_function || symbols.empty()) facts.functions.push_back(reader.read(function));
  }
  return facts;
}

CpuFacts read_cpu_facts(const std::vector<fs::path>& objects) {
  CpuFacts facts;
  for (const auto& object : objects) {
    // -l: the source line of each instruction, where the build left line tables (-g1, build/build.cpp).
    const ToolResult result =
        run_tool({"objdump", "-d", "-l", "-r", "-t", "--no-show-raw-insn", object.string()}, ".", 60, 64u << 20);
    if (!result.ok())
      throw InspectError("objdump could not read " + object.filename().string() +
                         (result.exit_code == -1 && !result.timed_out ? " (is binutils installed?)" : "") + ": " +
                         result.output.substr(0, 300));
    CpuFacts one = parse_objdump(result.output, object.string());
    for (auto& function : one.functions) facts.functions.push_back(std::move(function));
  }
  return facts;
}

}  // namespace grader
