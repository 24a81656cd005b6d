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
#include "inspect/cpu_data.h"
#include "inspect/facts.h"
#include "inspect/x86_instruction.h"

namespace grader {

namespace {

namespace fs = std::filesystem;

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
  bool section_symbol = false;
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
  symbol.address = objdump_hex(line.substr(0, space));
  const std::string_view flags = line.substr(space + 1, 7);
  symbol.global = flags[0] == 'g' || flags[0] == 'u' || flags[1] == 'w';
  symbol.function = flags[6] == 'F' || flags[4] == 'i';  // an ifunc's name is a function's, at its resolver
  symbol.section_symbol = flags[5] == 'd';
  const std::string_view rest = line.substr(space + 9);
  const auto tab = rest.find('\t');
  if (tab == std::string_view::npos) return std::nullopt;
  symbol.section = std::string(rest.substr(0, tab));
  std::string_view tail = rest.substr(tab + 1);
  const auto size_end = tail.find(' ');
  if (size_end == std::string_view::npos) return std::nullopt;
  symbol.size = objdump_hex(tail.substr(0, size_end));
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
    const std::int64_t magnitude = static_cast<std::int64_t>(objdump_hex(target.substr(sign + 3)));
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
  target.address = objdump_hex(address);
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

struct ShapedInstruction {
  std::uint64_t address = 0;
  std::string text;              // registers by kind, no address
  std::uint64_t target = 0;      // an internal branch's target; 0 for none
  bool ends_block = false;       // a branch, call or return
};

// Straight runs of instructions, cut after every branch, call and return and before every internal branch target,
// each run's instructions sorted: a copy whose independent instructions are in another order has the same shape.
std::string shape_hash(const std::vector<ShapedInstruction>& instructions) {
  std::set<std::uint64_t> starts;
  for (std::size_t i = 0; i < instructions.size(); ++i) {
    if (instructions[i].target != 0) starts.insert(instructions[i].target);
    if (instructions[i].ends_block && i + 1 < instructions.size()) starts.insert(instructions[i + 1].address);
  }
  std::map<std::uint64_t, std::size_t> block_of;
  for (std::uint64_t start : starts) block_of.emplace(start, block_of.size() + 1);
  std::string shape;
  std::vector<std::string> block;
  auto flush = [&] {
    std::sort(block.begin(), block.end());
    for (const auto& line : block) shape += line + "\n";
    shape += "--\n";
    block.clear();
  };
  for (const auto& x : instructions) {
    if (starts.count(x.address) && !block.empty()) flush();
    std::string line = x.text;
    if (x.target != 0) {
      const auto found = block_of.find(x.target);
      line += " B" + std::to_string(found == block_of.end() ? 0 : found->second);
    }
    block.push_back(line);
  }
  flush();
  return sha256_hex(std::as_bytes(std::span(shape.data(), shape.size()))).substr(0, 16);
}

// Whole-object context: which function lies where, to resolve section-relative and assembler-resolved targets,
// and the object's data (inspect/cpu_data.h), to tell a reference to data from one to code.
class ObjectReader {
 public:
  ObjectReader(std::vector<SymbolLine> symbols, std::string object, const ObjectData& data)
      : symbols_(std::move(symbols)), object_(std::move(object)), data_(data) {}

  // The function that starts at `address` of `section`; empty when none does.
  std::string function_at(const std::string& section, std::uint64_t address) const {
    for (const auto& symbol : symbols_)
      if (symbol.function && symbol.section == section && symbol.address == address) return symbol.name;
    return {};
  }

  // `data_references`: the data its instructions refer to, for ObjectData to resolve once all are known.
  CpuFunction read(const RawFunction& raw, std::vector<DataReference>& data_references) const;

 private:
  // The function a relocation lands on: itself for a function's symbol, the function whose body holds
  // section+offset for a code section's symbol (a call's PC-relative addend is the target less 4), empty for data,
  // which `data_reference` then names.
  std::string relocation_target(const Relocation& relocation, std::optional<DataReference>& data_reference) const {
    const std::string& symbol = relocation.symbol;
    const bool pc_relative = relocation.type.find("PC32") != std::string::npos || relocation.type.find("PLT32") != std::string::npos ||
                             relocation.type.find("GOTPCREL") != std::string::npos;
    const std::int64_t offset = relocation.addend + (pc_relative ? 4 : 0);
    if (data_.is_data(symbol)) {
      data_reference = DataReference{symbol, offset};
      return {};
    }
    if (symbol.rfind(".L", 0) == 0) return {};
    if (!symbol.empty() && symbol[0] == '.') return data_.function_containing(symbol, offset);
    return symbol;
  }

  std::vector<SymbolLine> symbols_;
  std::string object_;
  const ObjectData& data_;
};

CpuFunction ObjectReader::read(const RawFunction& raw, std::vector<DataReference>& data_references) const {
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
  std::vector<ShapedInstruction> shaped;  // for the shape hash
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
    ShapedInstruction shape{x.address, x.mnemonic + " " + register_kinds(normalise_operands(x.operands)), 0,
                            branch || x.mnemonic.rfind("ret", 0) == 0};
    bool resolved_by_relocation = false;
    bool lands_on_code = false;  // a relocation names the function it goes to (a call through the GOT included)
    for (const auto& relocation : instruction.relocations) {
      std::optional<DataReference> data;
      std::string landed = relocation_target(relocation, data);
      if (data) data_references.push_back(*data);
      if (!landed.empty()) {
        resolved_by_relocation = true;
        lands_on_code = true;
        if (branch) {
          if (landed != raw.symbol || x.is_call) add_once(function.calls, landed);
          if (x.is_call && is_omp_region_call(landed)) ++function.openmp_regions;
        } else if (landed != raw.symbol) {
          add_once(function.references, landed);
        } else {
          function.takes_own_address = true;
        }
      }
      const std::string named = landed.empty() ? relocation.symbol : landed;
      hashed += " @" + (named == raw.symbol ? std::string("<self>") : named);
      shape.text += " @" + (named == raw.symbol ? std::string("<self>") : named);
    }
    // A branch through a pointer: its operand is a register or memory ("*%rax", "*0x8(%rdi)"). A switch's jump
    // table is jumped through with notrack under -fcf-protection; it lands in the function itself.
    if (branch && !x.operands.empty() && x.operands[0] == '*' && !lands_on_code &&
        !(x.is_jump && instruction.text.find("notrack") != std::string::npos))
      function.indirect_branches.push_back(x.mnemonic + " " + normalise_operands(x.operands));
    if (!resolved_by_relocation && target.present && instruction.relocations.empty()) {
      const bool inside = target.address >= start && target.address < end;
      if (inside && target.address != start) {
        hashed += " L" + std::to_string(target.address - start);
        shape.target = target.address;
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
          } else {
            function.takes_own_address = true;
          }
          hashed += " @" + (landed == raw.symbol ? std::string("<self>") : landed);
          shape.text += " @" + (landed == raw.symbol ? std::string("<self>") : landed);
        }
      }
    }
    normalised += hashed + "\n";
    if (!does_nothing(x)) shaped.push_back(std::move(shape));
  }
  function.code_hash = sha256_hex(std::as_bytes(std::span(normalised.data(), normalised.size()))).substr(0, 16);
  function.shape_hash = shape_hash(shaped);

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

CpuFacts parse_objdump(std::string_view text, const std::string& object, std::string_view data_text) {
  std::vector<SymbolLine> symbols;
  std::vector<RawFunction> raw;
  std::string section;
  std::string source;  // the source line the instructions below come from (objdump -l)
  std::set<std::string> code_sections;
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
      code_sections.insert(section);
      continue;
    }
    if (line.empty()) continue;
    // "0000000000000040 <name>:"
    if (std::isxdigit(static_cast<unsigned char>(line[0])) && line.size() > 4 && line.substr(line.size() - 2) == ">:") {
      const auto angle = line.find(" <");
      if (angle == std::string_view::npos) continue;
      raw.push_back({std::string(line.substr(angle + 2, line.size() - angle - 4)), section, objdump_hex(line.substr(0, angle)), {}});
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
    raw.back().instructions.push_back({objdump_hex(address), std::string(rest), {}, source});
  }

  std::vector<ObjectSymbol> table;
  for (const auto& symbol : symbols)
    table.push_back({symbol.name, symbol.section, symbol.address, symbol.size, symbol.global, symbol.function, symbol.section_symbol});
  ObjectData data(fs::path(object).filename().string(), std::move(table), code_sections, data_text);
  CpuFacts facts;
  const ObjectReader reader(symbols, object, data);
  std::vector<std::vector<DataReference>> references;
  for (const auto& function : raw) {
    // objdump also heads a block for a non-function symbol in code (a label the source named); its instructions
    // belong to the function before it, whose size the symbol table gives. Only functions are kept.
    const bool is_function = std::any_of(symbols.begin(), symbols.end(), [&](const SymbolLine& symbol) {
      return symbol.function && symbol.name == function.symbol && symbol.section == function.section;
    });
    if (!is_function && !symbols.empty()) continue;
    references.emplace_back();
    facts.functions.push_back(reader.read(function, references.back()));
  }
  // The data the code refers to cuts the unnamed data into places; then each function's references get their keys.
  for (const auto& list : references)
    for (const auto& reference : list) data.refer(reference);
  facts.data = data.build();
  for (std::size_t i = 0; i < facts.functions.size(); ++i)
    for (const auto& reference : references[i])
      if (std::string key = data.key_of(reference); !key.empty()) add_once(facts.functions[i].data, key);
  link_cpu_data(facts);
  return facts;
}

CpuFacts read_cpu_facts(const std::vector<fs::path>& objects) {
  CpuFacts facts;
  for (const auto& object : objects) {
    // -l: the source line of each instruction, where the build left line tables (-g1, build/build.cpp).
    const ToolResult code =
        run_tool({"objdump", "-d", "-l", "-r", "-t", "--no-show-raw-insn", object.string()}, ".", 60, 64u << 20);
    const ToolResult data = code.ok() ? run_tool({"objdump", "-r", "-s", object.string()}, ".", 60, 64u << 20) : code;
    for (const ToolResult* result : {&code, &data})
      if (!result->ok())
        throw InspectError("objdump could not read " + object.filename().string() +
                           (result->exit_code == -1 && !result->timed_out ? " (is binutils installed?)" : "") + ": " +
                           result->output.substr(0, 300));
    CpuFacts one = parse_objdump(code.output, object.string(), data.output);
    for (auto& function : one.functions) facts.functions.push_back(std::move(function));
    for (auto& place : one.data) facts.data.push_back(std::move(place));
  }
  link_cpu_data(facts);  // a string in one object may name a function of another
  return facts;
}

}  // namespace grader
