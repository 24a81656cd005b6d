// startup.h: the link policy's rule that no student code runs outside main. The toolchain offers several ways to
// be called before main (or after it returns) without a call from the harness; each is found in the object itself:
//   - sections the C runtime or the linker script run, by name (.init, .fini, .init_array, .fini_array,
//     .preinit_array, .ctors, .dtors, each with its ".name.*" variants), and by type (a section typed
//     INIT_ARRAY, FINI_ARRAY or PREINIT_ARRAY under any name);
//   - sections the C runtime registers before main (.jcr, .tm_clone_table) or that name the program started
//     before this one (.interp);
//   - GNU indirect functions (IFUNC symbols, local or global, target_clones) and IRELATIVE relocations, whose
//     resolvers run while the program is relocated, before main and before the syscall filter.
// nvcc registers a CUDA object's kernels from an .init_array entry of its own: that one entry is let through.
#pragma once

#include <string>
#include <vector>

#include "policy/elf_file.h"

namespace grader {

struct OutsideMain {
  std::string what;  // the section, symbol or relocation, as the object names it
  std::string rule;  // why it is refused, in words
};

std::vector<OutsideMain> code_outside_main(const ElfFile& object, bool cuda);

}  // namespace grader
