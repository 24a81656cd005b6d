#include "policy/startup.h"

namespace grader {

namespace {

// Section names the linker script (ld --verbose) or crt1/crti/crtbegin gather into code that runs around main.
const std::vector<std::string>& startup_section_names() {
  static const std::vector<std::string> names = {".init", ".fini", ".init_array", ".fini_array", ".preinit_array",
                                                 ".ctors", ".dtors", ".jcr", ".tm_clone_table", ".interp"};
  return names;
}

bool startup_type(const std::string& type) {
  return type == "INIT_ARRAY" || type == "FINI_ARRAY" || type == "PREINIT_ARRAY";
}

// ".init_array" or ".init_array.00100" (a constructor priority), not ".init_arrayfoo".
std::string startup_name(const std::string& section) {
  for (const auto& name : startup_section_names())
    if (section == name || section.rfind(name + ".", 0) == 0) return name;
  return "";
}

bool is_nvcc_registration(const std::string& symbol) {
  return symbol.find("__sti____cudaRegisterAll") != std::string::npos;
}

// nvcc's own constructor: an .init_array whose every entry calls the object's kernel registration.
bool only_nvcc_registration(const ElfFile& object, const std::string& section) {
  bool any = false;
  for (const auto& relocation : object.relocations) {
    if (relocation.section != section) continue;
    any = true;
    // The entry often names a section (".text.startup + 362"): then the target is the function at that offset.
    const std::string target = relocation.symbol.rfind(".", 0) == 0
                                   ? object.function_at(relocation.symbol, relocation.addend)
                                   : relocation.symbol;
    if (!is_nvcc_registration(target)) return false;
  }
  return any;
}

}  // namespace

std::vector<OutsideMain> code_outside_main(const ElfFile& object, bool cuda) {
  std::vector<OutsideMain> found;
  for (const auto& section : object.sections) {
    const std::string name = startup_name(section.name);
    if (name.empty() && !startup_type(section.type)) continue;
    if (cuda && section.name == ".init_array" && only_nvcc_registration(object, section.name)) continue;
    std::string rule;
    if (name == ".interp") {
      rule = "has an .interp section: it names the program the kernel starts before this one";
    } else if (name == ".jcr" || name == ".tm_clone_table") {
      rule = "has a " + name + " section, which the C runtime registers before main";
    } else {
      const std::string kind = name.empty() ? " (of type " + section.type + ")" : name != section.name ? " (" + name + ")" : "";
      rule = "has a " + section.name + " section" + kind + ": code that runs before main or after it returns (a global object with a constructor or destructor, "
             "__attribute__((constructor)), or assembly); make such objects local to a function";
    }
    found.push_back({section.name, rule});
  }
  for (const auto& symbol : object.symbols)
    if (symbol.type == "IFUNC" || symbol.type == "GNU_IFUNC")
      found.push_back({symbol.name, "is an indirect function (GNU ifunc, or target_clones): its resolver would run "
                                    "before main; write one version, or choose at run time"});
  for (const auto& relocation : object.relocations)
    if (relocation.type.find("IRELATIVE") != std::string::npos)
      found.push_back({relocation.type + " in " + relocation.section,
                       "is an indirect-function relocation: the code it names would run before main"});
  return found;
}

}  // namespace grader
