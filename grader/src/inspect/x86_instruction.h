// x86_instruction.h: one line of objdump's AT&T disassembly, read for what the facts need (inspect/facts.h): is it
// padding, a branch or a call, floating-point arithmetic of which kind and width, does it read or write memory,
// which register does it write. Not a disassembler: objdump is; this reads its words.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inspect/facts.h"

namespace grader {

struct X86Instruction {
  std::uint64_t address = 0;
  std::string mnemonic;   // without prefixes (lock, rep, data16, notrack, bnd): "vfmadd231pd", "jne", "call"
  std::string operands;   // as objdump wrote them, comments included: "(%rsi,%rax,8),%ymm1,%ymm0"
  bool padding = false;   // nop, int3: alignment, not code
  bool is_jump = false;   // any j* (jmp, jne, ...)
  bool is_call = false;
  FpMix fp;               // this instruction's arithmetic, when it is floating-point arithmetic
  bool accumulates = false;  // an add or FMA whose destination is also one of its sources
  bool loads = false, stores = false;
  std::string destination;  // the register written, by number ("xmm1" for %xmm1, %ymm1 and %zmm1); empty if none
  std::string source;       // "matvec.cpp:42": the source line it came from, where the object has line tables
};

X86Instruction decode_x86(const std::string& text);

// The operands with what depends on where the code lies taken out: rip-relative displacements, and the address
// objdump prints before a target's name. For the code hash.
std::string normalise_operands(const std::string& operands);

// The operands with each register by its kind only ("%r64", "%r32", "%xmm", "%ymm", "%k"; %rip and %rsp kept): for
// the shape hash (inspect/facts.h), where a copy's register allocation may differ.
std::string register_kinds(const std::string& operands);

// An instruction that changes nothing, which a copy can gain without changing what it does: a move or lea of a
// register to itself. Padding (nop) is already X86Instruction::padding.
bool does_nothing(const X86Instruction& x);

// The facts of one loop body (its instructions in address order).
CpuLoop summarise_loop(const std::vector<const X86Instruction*>& body);

// What the instruction does, in a few words, for an annotated listing: "packed 256-bit FMA, load, running sum";
// empty for what the facts do not count (integer and address arithmetic, compares).
std::string describe_x86(const X86Instruction& x);

// Whether loop `a` is a better candidate than `b` for the hot loop: more floating-point arithmetic, then more
// instructions.
bool hotter(const CpuLoop& a, const CpuLoop& b);

}  // namespace grader
