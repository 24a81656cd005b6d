#include "inspect/cpu_data.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace grader {

namespace {

std::string_view data_trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return text;
}

bool all_hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}


// Sections the program never reads a pointer from: tools' tables (unwinding, debugging), notes, relocation and
// group sections, and CUDA's device image.
bool program_data(const std::string& section) {
  for (std::string_view prefix : {".eh_frame", ".debug", ".zdebug", ".note", ".comment", ".gcc_except_table", ".group",
                                  ".rela", ".rel.", ".stab", ".nv_fatbin", ".nvFatBinSegment", ".symtab", ".strtab",
                                  ".shstrtab", ".llvm_addrsig", ".gnu.build.attributes"})
    if (section.rfind(prefix, 0) == 0) return false;
  return true;
}

// "_Z11matmul_bestPKdS0_Pdlll+0x0000000000000010", ".text+0x00000000000000c0", "keep-0x0000000000000004".
DataReference data_relocation_target(std::string_view value) {
  DataReference reference;
  const auto sign = value.find_last_of("+-");
  if (sign != std::string_view::npos && sign > 0 && value.substr(sign + 1, 2) == "0x") {
    const auto magnitude = static_cast<std::int64_t>(objdump_hex(value.substr(sign + 3)));
    reference.offset = value[sign] == '-' ? -magnitude : magnitude;
    value = value.substr(0, sign);
  }
  reference.symbol = std::string(value);
  return reference;
}

bool name_character(unsigned char c) { return std::isalnum(c) || c == '_' || c == '.' || c == '$' || c == '@'; }

}  // namespace

ObjectData::ObjectData(std::string object, std::vector<ObjectSymbol> symbols, std::set<std::string> code_sections,
                       std::string_view text)
    : object_(std::move(object)), symbols_(std::move(symbols)), code_sections_(std::move(code_sections)) {
  for (const auto& s : symbols_)
    if (!s.section_symbol && !s.function && s.section != "*UND*" && s.section != "*ABS*" && s.section != "*COM*" &&
        !code_sections_.count(s.section) && program_data(s.section))
      sections_[s.section].cuts.insert(s.address);

  // "RELOCATION RECORDS FOR [.data.rel.local]:" then "OFFSET TYPE VALUE" lines; "Contents of section .rodata:"
  // then " 0000 5f5a3131 6d61746d 756c5f62 65737450  _Z11matmul_bestP" lines.
  std::string section;
  bool relocations = false, counted = false;
  std::map<std::string, std::string> bytes;  // section -> its contents
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.rfind("RELOCATION RECORDS FOR [", 0) == 0) {
      section = std::string(line.substr(24, line.find(']') - 24));
      relocations = true;
      counted = !code_sections_.count(section) && program_data(section);
      continue;
    }
    if (line.rfind("Contents of section ", 0) == 0) {
      section = std::string(line.substr(20, line.size() - 21));  // "...section .rodata:" -> ".rodata"
      relocations = false;
      counted = !code_sections_.count(section) && program_data(section);
      continue;
    }
    if (!counted || line.empty()) continue;
    if (relocations) {
      // "0000000000000008 R_X86_64_64       _Z11matmul_bestPKdS0_Pdlll"
      const auto first = line.find(' ');
      if (first == std::string_view::npos || !all_hex(line.substr(0, first))) continue;
      std::string_view rest = data_trim(line.substr(first));
      const auto type_end = rest.find(' ');
      if (type_end == std::string_view::npos) continue;
      sections_[section].relocations.emplace_back(objdump_hex(line.substr(0, first)),
                                                  data_relocation_target(data_trim(rest.substr(type_end))));
      continue;
    }
    std::string_view hexes = line.size() > 1 && line[0] == ' ' ? line.substr(1) : std::string_view();
    const auto address_end = hexes.find(' ');
    if (address_end == std::string_view::npos || !all_hex(hexes.substr(0, address_end))) continue;
    hexes = hexes.substr(address_end + 1);
    hexes = hexes.substr(0, hexes.find("  "));  // the ASCII column follows two spaces
    std::string& out = bytes[section];
    for (std::size_t i = 0; i + 1 < hexes.size(); ++i) {
      if (hexes[i] == ' ') continue;
      out.push_back(static_cast<char>(objdump_hex(hexes.substr(i, 2))));
      ++i;
    }
  }
  for (const auto& [name, contents] : bytes) {
    std::size_t start = 0;
    for (std::size_t i = 0; i <= contents.size(); ++i) {
      if (i < contents.size() && name_character(static_cast<unsigned char>(contents[i]))) continue;
      if (i - start >= 2) sections_[name].strings.emplace_back(start, contents.substr(start, i - start));
      start = i + 1;
    }
  }
  for (auto& [name, data] : sections_)
    for (const auto& [offset, to] : data.relocations) {
      (void)offset;
      const auto [target_section, target_offset] = resolve(to);
      if (!target_section.empty()) sections_[target_section].cuts.insert(target_offset);
    }
}

const ObjectSymbol* ObjectData::symbol(const std::string& name) const {
  for (const auto& s : symbols_)
    if (s.name == name && s.section != "*UND*") return &s;
  return nullptr;
}

std::string ObjectData::function_containing(const std::string& section, std::int64_t offset) const {
  if (offset < 0) return {};
  const auto at = static_cast<std::uint64_t>(offset);
  for (const auto& s : symbols_)
    if (s.function && s.section == section && (at == s.address || (at > s.address && at < s.address + s.size))) return s.name;
  return {};
}

bool ObjectData::is_data(const std::string& name) const {
  if (sections_.count(name)) return true;
  const ObjectSymbol* s = symbol(name);
  return s != nullptr && !s->function && !code_sections_.count(s->section) && program_data(s->section);
}

std::pair<std::string, std::uint64_t> ObjectData::resolve(const DataReference& reference) const {
  std::string section;
  std::int64_t offset = reference.offset;
  if (const ObjectSymbol* s = symbol(reference.symbol); s != nullptr && !s->section_symbol) {
    section = s->section;
    offset += static_cast<std::int64_t>(s->address);
  } else {
    section = reference.symbol;  // a section's own name
  }
  if (offset < 0 || code_sections_.count(section) || !program_data(section) || section.empty() || section[0] == '*')
    return {};
  if (!sections_.count(section) && symbol(reference.symbol) == nullptr) return {};  // not this object's
  return {section, static_cast<std::uint64_t>(offset)};
}

ObjectData::Place ObjectData::place_at(const std::string& section, std::uint64_t offset) const {
  for (const auto& s : symbols_)
    if (!s.function && !s.section_symbol && s.section == section && s.size > 0 && offset >= s.address &&
        offset < s.address + s.size)
      return {s.address, s.address + s.size, s.global ? s.name : object_ + ":" + s.name, demangle(s.name) + " (" + section + ")"};
  const auto found = sections_.find(section);
  std::uint64_t start = 0;
  if (found != sections_.end()) {
    auto cut = found->second.cuts.upper_bound(offset);
    start = *std::prev(cut);
  }
  for (const auto& s : symbols_)  // an unsized label at the cut (".LC0") names it
    if (!s.function && !s.section_symbol && s.section == section && s.address == start)
      return {start, 0, object_ + ":" + s.name, s.name + " (" + section + ")"};
  char hex_offset[32];
  std::snprintf(hex_offset, sizeof hex_offset, "+0x%llx", static_cast<unsigned long long>(start));
  return {start, 0, object_ + ":" + section + hex_offset, section + hex_offset};
}

void ObjectData::refer(const DataReference& reference) {
  const auto [section, offset] = resolve(reference);
  if (!section.empty()) sections_[section].cuts.insert(offset);
}

std::string ObjectData::key_of(const DataReference& reference) const {
  const auto [section, offset] = resolve(reference);
  if (!section.empty()) return place_at(section, offset).key;
  const ObjectSymbol* s = symbol(reference.symbol);
  if (s == nullptr && reference.symbol.rfind(".", 0) != 0) return reference.symbol;  // defined elsewhere
  return {};
}

std::string ObjectData::target_of(const DataReference& reference) const {
  if (const ObjectSymbol* s = symbol(reference.symbol); s != nullptr && s->function) {
    return reference.offset == 0 ? s->name : function_containing(s->section, static_cast<std::int64_t>(s->address) + reference.offset);
  }
  if (code_sections_.count(reference.symbol)) return function_containing(reference.symbol, reference.offset);
  if (const ObjectSymbol* s = symbol(reference.symbol); s != nullptr && code_sections_.count(s->section))
    return function_containing(s->section, static_cast<std::int64_t>(s->address) + reference.offset);
  return key_of(reference);
}

std::vector<CpuData> ObjectData::build() {
  std::map<std::string, CpuData> places;
  auto place = [&](const std::string& section, std::uint64_t offset) -> CpuData& {
    const Place p = place_at(section, offset);
    CpuData& data = places[p.key];
    data.key = p.key;
    data.name = p.name;
    data.section = section;
    return data;
  };
  for (const auto& [section, data] : sections_) {
    for (std::uint64_t cut : data.cuts) place(section, cut);
    for (const auto& [offset, to] : data.relocations) {
      const std::string target = target_of(to);
      CpuData& holder = place(section, offset);
      if (!target.empty() && target != holder.key &&
          std::find(holder.points_to.begin(), holder.points_to.end(), target) == holder.points_to.end())
        holder.points_to.push_back(target);
    }
    for (const auto& [offset, text] : data.strings) place(section, offset).strings.push_back(text);
  }
  std::vector<CpuData> out;
  for (auto& [key, data] : places) out.push_back(std::move(data));
  return out;
}

void link_cpu_data(CpuFacts& facts) {
  // Strings that name a function: its symbol anywhere in the string, or its plain name as the whole string.
  for (auto& data : facts.data)
    for (const auto& text : data.strings)
      for (const auto& function : facts.functions) {
        const bool named = (function.symbol.size() >= 4 && text.find(function.symbol) != std::string::npos) ||
                           (function.global && text == plain_name(function.symbol));
        if (named && std::find(data.points_to.begin(), data.points_to.end(), function.symbol) == data.points_to.end())
          data.points_to.push_back(function.symbol);
      }
  facts.taken.clear();
  auto add = [&](const std::string& function, const std::string& where) {
    const CpuFunction* defined = facts.find(function);
    if (defined == nullptr) return;  // the C library's, the runtime's: not the student's code
    for (const auto& taken : facts.taken)
      if (taken.function == defined->symbol && taken.where == where) return;
    facts.taken.push_back({defined->symbol, where});
  };
  for (const auto& function : facts.functions) {
    const std::string where = "in the code of " + plain_name(function.symbol);
    for (const auto& taken : function.references) add(taken, where);
    if (function.takes_own_address) add(function.symbol, where);
  }
  for (const auto& data : facts.data)
    for (const auto& target : data.points_to) add(target, "in " + data.name);
}

std::uint64_t objdump_hex(std::string_view text) {
  std::uint64_t value = 0;
  for (char c : text) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) break;
    value = value * 16 + static_cast<std::uint64_t>(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10));
  }
  return value;
}

}  // namespace grader
