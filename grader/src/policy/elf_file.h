// elf_file.h: what the link policy reads of one relocatable object: its sections, its symbols and its relocations,
// from one `readelf -W -S -s -r` (binutils), the same tool the linker's own family uses, so nothing is read
// differently from how `ld` will see it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace grader {

struct ElfSection {
  std::string index;  // "5", as the symbol table's Ndx column names it
  std::string name;   // ".text.startup"
  std::string type;   // readelf's word: PROGBITS, INIT_ARRAY, GROUP...
  std::string flags;  // readelf's letters: "AX", "WAG"...
};

struct ElfSymbol {
  std::string name;
  std::string type;     // NOTYPE, FUNC, OBJECT, TLS, GNU_IFUNC, SECTION, FILE...
  std::string binding;  // LOCAL, GLOBAL, WEAK, UNIQUE
  std::string section;  // a section's index, or UND, ABS, COM
  unsigned long long value = 0;

  bool undefined() const { return section == "UND"; }
  // A definition other objects can bind to: anything but LOCAL that is not a reference.
  bool global_definition() const { return !undefined() && binding != "LOCAL" && type != "FILE" && type != "SECTION"; }
};

struct ElfRelocation {
  std::string section;  // the section the relocations apply to: ".init_array" for ".rela.init_array"
  std::string type;     // R_X86_64_64, R_X86_64_IRELATIVE...
  std::string symbol;   // the symbol named, or a section's name (".text"); empty for none
  unsigned long long addend = 0;
};

struct ElfFile {
  std::vector<ElfSection> sections;
  std::vector<ElfSymbol> symbols;
  std::vector<ElfRelocation> relocations;

  const ElfSection* section_at(const std::string& index) const;
  // The function defined at `offset` of `section`, or "<section>+<offset>" when none is.
  std::string function_at(const std::string& section, unsigned long long offset) const;
};

// Throws std::runtime_error when readelf cannot read the object.
ElfFile read_elf(const std::filesystem::path& object);

}  // namespace grader
