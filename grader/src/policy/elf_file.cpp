#include "policy/elf_file.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#include "core/tool.h"

namespace grader {

namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

bool is_hex(const std::string& word, std::size_t digits) {
  return word.size() == digits && word.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string join(const std::vector<std::string>& parts, std::size_t from, std::size_t to) {
  std::string text;
  for (std::size_t i = from; i < to; ++i) text += (i == from ? "" : " ") + parts[i];
  return text;
}

// "  [ 5] .text.startup     PROGBITS        0000000000000000 000040 00001a 00  AX  0   0 16". A section's name may
// hold spaces (the assembler takes any quoted name), so the type is the word before the 16-digit address, the
// name every word before it.
bool parse_section(const std::string& line, ElfSection& section) {
  const auto open = line.find('[');
  const auto close = line.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  section.index = line.substr(open + 1, close - open - 1);
  section.index.erase(0, section.index.find_first_not_of(' '));
  if (section.index.empty() || section.index.find_first_not_of("0123456789") != std::string::npos) return false;
  const auto parts = words(line.substr(close + 1));
  for (std::size_t at = 1; at + 1 < parts.size(); ++at) {
    if (!is_hex(parts[at + 1], 16)) continue;
    section.type = parts[at];
    section.name = join(parts, 0, at);
    // address offset size entsize [flags] link info align: the flags are there when 8 words follow the type.
    section.flags = parts.size() - at - 1 == 8 ? parts[at + 5] : "";
    return true;
  }
  // The null section has no name: "[ 0]                   NULL            0000000000000000 ...".
  if (!parts.empty()) section.type = parts[0];
  return true;
}

// "    12: 0000000000000362    90 FUNC    LOCAL  DEFAULT    5 _ZL24__sti____cudaRegisterAllv"
bool parse_symbol(const std::string& line, ElfSymbol& symbol) {
  std::istringstream fields(line);
  std::string number, value, size, visibility;
  if (!(fields >> number >> value >> size >> symbol.type >> symbol.binding >> visibility >> symbol.section)) return false;
  // Entries are numbered "12:"; the column headings ("Num:") are not.
  if (number.size() < 2 || number.back() != ':' ||
      number.find_first_not_of("0123456789") != number.size() - 1)
    return false;
  std::getline(fields, symbol.name);
  symbol.name.erase(0, symbol.name.find_first_not_of(' '));
  symbol.value = std::strtoull(value.c_str(), nullptr, 16);
  return true;
}

// "offset info type symbol-value symbol-name + addend", or "offset info type addend" for a relocation that
// names no symbol (R_X86_64_IRELATIVE). The value column of an ifunc reads "name()".
bool parse_relocation(const std::string& line, ElfRelocation& relocation) {
  const auto parts = words(line);
  if (parts.size() < 4 || !is_hex(parts[0], 16) || !is_hex(parts[1], 16)) return false;
  relocation.type = parts[2];
  if (parts.size() == 4) {
    relocation.addend = std::strtoull(parts[3].c_str(), nullptr, 16);
    return true;
  }
  std::size_t end = parts.size();
  if (end >= 6 && (parts[end - 2] == "+" || parts[end - 2] == "-")) {
    relocation.addend = std::strtoull(parts[end - 1].c_str(), nullptr, 16);
    end -= 2;
  }
  relocation.symbol = join(parts, 4, end);
  return true;
}

}  // namespace

const ElfSection* ElfFile::section_at(const std::string& index) const {
  for (const auto& section : sections)
    if (section.index == index) return &section;
  return nullptr;
}

std::string ElfFile::function_at(const std::string& section, unsigned long long offset) const {
  for (const auto& symbol : symbols) {
    if (symbol.type != "FUNC" || symbol.value != offset) continue;
    const ElfSection* defined_in = section_at(symbol.section);
    if (defined_in != nullptr && defined_in->name == section) return symbol.name;
  }
  return section + "+" + std::to_string(offset);
}

ElfFile read_elf(const std::filesystem::path& object) {
  ToolResult result = run_tool({"readelf", "-W", "-S", "-s", "-r", object.string()}, object.parent_path(), 60);
  if (!result.ok()) throw std::runtime_error("readelf could not read " + object.string() + ": " + result.output);
  ElfFile file;
  enum class Part { none, sections, symbols, relocations } part = Part::none;
  std::string relocated;
  std::istringstream lines(result.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Section Headers:", 0) == 0) {
      part = Part::sections;
      continue;
    }
    if (line.rfind("Symbol table '", 0) == 0) {
      part = Part::symbols;
      continue;
    }
    if (line.rfind("Relocation section '", 0) == 0) {
      // "Relocation section '.rela.init_array' at offset ...": the section it applies to, without ".rela"/".rel".
      part = Part::relocations;
      const auto start = line.find('\'') + 1;
      relocated = line.substr(start, line.find('\'', start) - start);
      for (const char* prefix : {".rela", ".rel"})
        if (relocated.rfind(prefix, 0) == 0) {
          relocated.erase(0, std::string(prefix).size());
          break;
        }
      continue;
    }
    if (line.rfind("Key to Flags:", 0) == 0) part = Part::none;
    switch (part) {
      case Part::sections: {
        ElfSection section;
        if (parse_section(line, section)) file.sections.push_back(section);
        break;
      }
      case Part::symbols: {
        ElfSymbol symbol;
        if (parse_symbol(line, symbol)) file.symbols.push_back(symbol);
        break;
      }
      case Part::relocations: {
        ElfRelocation relocation;
        relocation.section = relocated;
        if (parse_relocation(line, relocation)) file.relocations.push_back(relocation);
        break;
      }
      case Part::none:
        break;
    }
  }
  return file;
}

}  // namespace grader
