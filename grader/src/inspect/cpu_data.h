// cpu_data.h: the data of one object as the call graph needs it (inspect/facts.h, CpuData): which data can hold
// the address of code, and what it holds. Read from `objdump -r -s` (every section's relocations and contents) and
// the symbol table `objdump -t` printed for the disassembly (inspect/cpu_facts.cpp).
//
// Data is cut into places: a named object (a symbol with a size: a table, a variable, a vtable) is one place
// whatever offset of it is used (code indexes into a table); unnamed data (an initialiser the compiler emitted, a
// string literal) is cut at every address code or data refers to and at every symbol, so two tables the compiler
// left unnamed in one section stay two places. A place holds what its relocations point at (a function, other
// data) and the functions its strings name. Sections only tools read are not the program's data and are left out:
// unwind tables (.eh_frame holds every function's start), debug information, notes, CUDA's device image.
//
//   ObjectData data("blocking.cpp.o", symbols, {".text"}, objdump_r_s_text);
//   data.refer({".data.rel.local", 8});           // from code, before build()
//   std::vector<CpuData> places = data.build();
//   data.key_of({".data.rel.local", 8})           // "blocking.cpp.o:_ZL5table"
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "inspect/facts.h"

namespace grader {

// A symbol of the object's table, as the data reader needs it.
struct ObjectSymbol {
  std::string name;
  std::string section;  // "*UND*" for a symbol defined elsewhere
  std::uint64_t address = 0;
  std::uint64_t size = 0;
  bool global = false;
  bool function = false;
  bool section_symbol = false;  // the symbol naming a section itself (flag 'd')
};

// Where code or data points: a symbol (a named object, a local label such as ".LC0", a section's name) and an
// offset from it.
struct DataReference {
  std::string symbol;
  std::int64_t offset = 0;
};

class ObjectData {
 public:
  ObjectData(std::string object, std::vector<ObjectSymbol> symbols, std::set<std::string> code_sections,
             std::string_view relocations_and_contents);

  // The function whose body holds `offset` of code section `section`, by symbol; empty when none does.
  std::string function_containing(const std::string& section, std::int64_t offset) const;
  // Whether `symbol` names this object's data or a section of it (else: a function, code, or something defined
  // elsewhere).
  bool is_data(const std::string& symbol) const;

  // A reference from code: it starts a place of unnamed data. All of them before build().
  void refer(const DataReference& reference);
  // Every place of the object that holds an address or a string, or that code refers to.
  std::vector<CpuData> build();
  // The key of the place a reference lands on; for a symbol defined elsewhere, the symbol itself (a global's key).
  std::string key_of(const DataReference& reference) const;

 private:
  struct Place {
    std::uint64_t start = 0, end = 0;  // end 0: up to the next cut
    std::string key, name;
  };
  struct SectionData {
    std::set<std::uint64_t> cuts{0};
    std::vector<std::pair<std::uint64_t, DataReference>> relocations;  // at offset, to
    std::vector<std::pair<std::uint64_t, std::string>> strings;       // at offset
  };
  const ObjectSymbol* symbol(const std::string& name) const;
  // The section and offset a reference lands on; section empty when it is not this object's data.
  std::pair<std::string, std::uint64_t> resolve(const DataReference& reference) const;
  Place place_at(const std::string& section, std::uint64_t offset) const;
  std::string target_of(const DataReference& reference) const;  // a function symbol or a data key

  std::string object_;
  std::vector<ObjectSymbol> symbols_;
  std::set<std::string> code_sections_;
  std::map<std::string, SectionData> sections_;
};

// The hexadecimal number at the start of `text`, as objdump prints addresses, offsets and bytes ("4011a0", "1f
// <matvec+0x1f>"): its leading hex digits, 0 for none. For both objdump readers, the disassembly's and the data's.
std::uint64_t objdump_hex(std::string_view text);

// Once every object is read: each string in data that names a defined function (its symbol anywhere in the string,
// or its plain name as the whole string) points at that function, and `facts.taken` lists every function whose
// address the objects take. Idempotent.
void link_cpu_data(CpuFacts& facts);

}  // namespace grader
