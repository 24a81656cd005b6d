// facts.h: the inspect stage (between build and run): what the submission's code compiled to, read from its
// objects, never from running it. One reader serves two users: the report's "what your code does" and its hints
// (issue "Look inside"), and the step rules that decide whether a step is the step its name says (issue "The
// step you name is the step you wrote").
//
//   CPU code   objdump -d -r -t of the objects: per function, its floating-point instructions by kind and
//              width, its innermost loops, the calls, tail jumps and taken addresses it makes (the call graph),
//              OpenMP regions, and a hash of its code with addresses and its own name taken out.
//   CUDA code  the PTX nvcc wrote beside the object (--keep) and `ptxas -v` on it: per kernel, registers,
//              spills, shared memory, barriers, shuffles, atomics, global access widths, FP32/FP64/tensor work;
//              and, from the host object's call graph, which kernels each host function can launch.
//
//   CpuFacts facts = read_cpu_facts({"obj-candidate/matvec.cpp.o"});
//   const CpuFunction* f = facts.find("_Z15matvec_unrolledPKdS0_Pdll");
//   f->hot_loop->fp.widest_bits()   // 256: the loop's arithmetic is on ymm registers
//   f->hot_loop->accumulators       // 4
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace grader {

// A tool the reader needs is missing or failed (objdump, ptxas): the facts are left out and the report says why;
// grading goes on.
class InspectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------------------------------------------------------
// CPU code

// Floating-point arithmetic instructions (add, sub, mul, div, sqrt, min, max, FMA) by kind. Moves, shuffles and
// conversions are not arithmetic and are not counted.
struct FpMix {
  int scalar = 0;      // one number per instruction: addsd, vmulss, vfmadd231sd
  int packed128 = 0;   // packed on xmm: 2 doubles or 4 floats
  int packed256 = 0;   // packed on ymm
  int packed512 = 0;   // packed on zmm
  int fma = 0;         // of all the above, fused multiply-adds (vfmadd*, vfnmadd*, vfmsub*, vfnmsub*)
  int fma_scalar = 0;  // of those, scalar ones

  int total() const { return scalar + packed128 + packed256 + packed512; }
  int packed() const { return packed128 + packed256 + packed512; }
  // The widest register the arithmetic uses, in bits: 512, 256, 128 for packed code, 64 where all of it is
  // scalar, 0 where there is none.
  int widest_bits() const;
  FpMix& operator+=(const FpMix& other);
};

// A loop: the instructions from a backward branch's target to the branch. Innermost: it holds no other loop.
struct CpuLoop {
  std::uint64_t start = 0;  // offsets from the function's start: the branch target
  std::uint64_t end = 0;    // and the backward branch itself
  std::string function;     // the symbol the loop lies in (a loop reached through a call lies in the callee)
  int instructions = 0;     // padding nops left out
  FpMix fp;
  int loads = 0;   // instructions that read memory (a move from memory, or arithmetic with a memory operand)
  int stores = 0;  // instructions that write memory
  // Distinct registers that an add or FMA of the loop both reads and writes: the independent running sums.
  // A vector register counts once, however many lanes it holds.
  int accumulators = 0;
  std::vector<std::string> listing;  // "vfmadd231pd (%rsi,%rax,8),%ymm1,%ymm0", one per instruction, for reports
  std::vector<std::string> listing_sources;  // each one's source line, "matvec.cpp:42"; empty without line tables

  double loads_per_fma() const { return fp.fma > 0 ? static_cast<double>(loads) / fp.fma : 0; }
};

struct CpuFunction {
  std::string symbol;   // as the linker sees it: "_Z15matvec_unrolledPKdS0_Pdll"
  std::string name;     // demangled: "matvec_unrolled(double const*, double const*, double*, long, long)"
  std::string object;   // the object file's name ("matvec.cpp.o")
  std::string section;  // ".text", ".text.unlikely"
  bool global = false;
  std::uint64_t address = 0;  // within its section
  std::uint64_t size = 0;
  int instructions = 0;
  FpMix fp;                      // the whole function
  std::vector<CpuLoop> loops;    // its innermost loops, in address order
  std::optional<CpuLoop> hot_loop;  // of those, the one with the most floating-point arithmetic (then the longest)
  // Functions and external symbols it calls or tail-jumps to (call, jmp to another function's start), each once,
  // in order of first appearance; local (static) functions included, by their symbol.
  std::vector<std::string> calls;
  // Functions whose address it takes (lea of a function: OpenMP's outlined body handed to GOMP_parallel, a
  // callback, a kernel's host stub handed to the CUDA runtime).
  std::vector<std::string> references;
  int openmp_regions = 0;  // calls to GOMP_parallel*, GOMP_teams* (each #pragma omp parallel is one)
  // Hash of its instructions with its addresses, jump targets within it and its own name normalised: two functions
  // that compiled to the same code have the same hash, wherever they lie.
  std::string code_hash;
  // The same with what a trivial edit of the source moves left out as well: registers by their kind only
  // (%r64, %ymm), and the instructions of each straight run (between branches and branch targets) in sorted
  // order. A copy whose register allocation or order of independent instructions differs has the same shape.
  std::string shape_hash;
  std::vector<std::string> aliases;  // other symbols at the same address (a function the compiler folded into this,
                                     // an __attribute__((alias)), an ifunc's name on its resolver)
  // Data it refers to (CpuData keys): a table, a variable, a vtable, a string. What the data holds is reached too.
  std::vector<std::string> data;
  // Its branches through a pointer (call *%rax, jmp *0x0(%rip)), as objdump wrote them: where they land is known
  // only at run time. A switch's jump table (notrack jmp, emitted under -fcf-protection) is not one of them.
  std::vector<std::string> indirect_branches;
  bool takes_own_address = false;  // lea or mov of its own symbol (not a recursive call)
};

// A place in the objects' data that can hold the address of code: a named object (a table of functions, a
// variable, a vtable) or, for data the compiler left unnamed, the stretch from an address the code refers to up to
// the next such address or symbol. What it holds: the relocations in it (a function's address, or other data's)
// and the strings in it that name a function of the objects (a dlsym by name).
struct CpuData {
  std::string key;      // a global's symbol; "<object>:<symbol>" for a local one; "<object>:<section>+0x40" unnamed
  std::string name;     // for messages: the demangled symbol, or "<section>+0x40"
  std::string section;  // ".data.rel.ro", ".rodata.str1.1"
  std::vector<std::string> points_to;  // function symbols and CpuData keys
  std::vector<std::string> strings;    // the strings it holds (runs of name characters), matched to functions' names
};

// A function whose address the objects take other than to call it, and where: code that loads it, data that
// holds it, a string that names it. A branch through a pointer can land on any of these (C++ gives no other way to
// make a pointer to a function), and on no function outside them.
struct TakenAddress {
  std::string function;  // its symbol
  std::string where;     // "in the code of matmul_kij", "in _ZL5table (.data.rel.local)", "as a string in .rodata"
};

struct CpuFacts {
  std::vector<CpuFunction> functions;  // every defined function of the objects read, in file then address order
  std::vector<CpuData> data;           // the data that holds an address of code or a function's name, or that code
                                       // refers to
  std::vector<TakenAddress> taken;     // every function whose address is taken, each place once

  // The data whose key is `key`; nullptr when none is.
  const CpuData* find_data(std::string_view key) const;
  // The function defined as `symbol` (or one of its aliases); nullptr when none is.
  const CpuFunction* find(std::string_view symbol) const;
  // The defined function whose demangled name, up to its parameter list, is `name` ("matvec_unrolled").
  const CpuFunction* find_by_name(std::string_view name) const;
  // Every defined function `symbol` reaches through calls, tail jumps, taken addresses and the addresses held in
  // the data it refers to, itself first, breadth first, each once.
  std::vector<const CpuFunction*> reachable(std::string_view symbol) const;
  // Every symbol, defined or not (GOMP_parallel, cudaMemcpy), that `symbol` reaches, itself included; data keys
  // on the way are not listed.
  std::vector<std::string> reachable_symbols(std::string_view symbol) const;
  // Of what `symbol` reaches, the innermost loop with the most floating-point arithmetic; none without loops.
  std::optional<CpuLoop> hot_loop(std::string_view symbol) const;
};

// Reads every function of `objects` with `objdump -d -l -r -t --no-show-raw-insn` (-l: each instruction's source
// line, where the build left line tables), and their data with `objdump -r -s` (the relocations and contents of
// every section; through core/tool.h).
// Throws InspectError when objdump is missing or cannot read an object.
CpuFacts read_cpu_facts(const std::vector<std::filesystem::path>& objects);
// The same from objdump's text (what read_cpu_facts runs it for); `object` names the file in the facts.
// `data_text`: `objdump -r -s` of the same object; without it only the data the code names is known, not what it
// holds.
CpuFacts parse_objdump(std::string_view text, const std::string& object, std::string_view data_text = {});

// The symbol demangled ("_Z3fooi" -> "foo(int)"); the symbol itself when it is not a C++ name.
std::string demangle(const std::string& symbol);
// The demangled name without its parameters and return type: "matvec_unrolled", "ns::f<int>".
std::string plain_name(const std::string& symbol);

// ---------------------------------------------------------------------------------------------------------------
// CUDA code

// Global-memory accesses by width: ld.global.f32 is scalar, ld.global.v2.f32 two elements, ld.global.v4 four.
struct GlobalAccess {
  int scalar = 0, v2 = 0, v4 = 0;
  int widest_bits = 0;  // the widest access in bits (a v4.f32 is 128); 0 without any
  int total() const { return scalar + v2 + v4; }
};

struct Kernel {
  std::string symbol;  // the .entry's name, mangled: "_Z10gemv_naivePKdS0_Pdll"
  std::string name;    // demangled
  // From ptxas -v for the lab's architecture; -1 where ptxas did not say.
  int registers = -1;
  int spill_store_bytes = 0, spill_load_bytes = 0;  // local memory ptxas spilled registers to
  int stack_bytes = 0;
  int shared_bytes = 0;  // static shared memory (__shared__ arrays); dynamic shared memory is the launch's
  // Counted in the PTX, in the kernel's body and every .func it calls (each call counted once).
  int shared_loads = 0, shared_stores = 0;
  int barriers = 0;   // bar.sync, barrier.sync (__syncthreads), bar.arrive and bar.red
  int shuffles = 0;   // shfl.sync
  int atomics = 0;    // atom.*, red.* (atomicAdd whose result is unused compiles to red)
  GlobalAccess global_loads, global_stores;
  int local_loads = 0, local_stores = 0;  // arrays in local memory already in the PTX
  int fp32 = 0, fp64 = 0, fp16 = 0;  // arithmetic instructions of each type (add, mul, fma, div, ...)
  int tensor = 0;            // mma, wmma.mma, wgmma.mma_async
  int tf32_conversions = 0;  // cvt.rna.tf32.f32 (inputs rounded for TF32 tensor cores)
  int loops = 0;             // backward branches
  int max_threads = 0;       // from __launch_bounds__ (.maxntid) or .reqntid; 0 when the kernel declares none
  std::vector<std::string> listing;  // the PTX body, one instruction a line, for reports
};

// What a GPU allows per multiprocessor, for the occupancy formula (CUDA C Programming Guide, "Occupancy
// Calculator"; compute capability 9.0 by default).
struct GpuLimits {
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  int max_warps_per_sm = 64;
  int registers_per_sm = 65536;
  int register_allocation_unit = 256;  // registers are given to a warp in units of this
  int max_registers_per_thread = 255;
  int shared_per_sm = 233472;          // 228 KiB
  int shared_reserved_per_block = 1024;
  int shared_allocation_unit = 128;
  int warp_size = 32;
};
GpuLimits limits_for_arch(const std::string& gpu_arch);  // "sm_90", "sm_80"; unknown: sm_90's

struct Occupancy {
  int block_threads = 0;
  int blocks_per_sm = 0;
  double fraction = 0;     // active warps / the most a multiprocessor holds
  std::string limited_by;  // "registers", "shared memory", "blocks per SM", "threads per SM"
};
// The theoretical occupancy of a kernel using `registers` per thread and `shared_bytes` per block (static plus
// dynamic), launched with `block_threads` threads a block.
Occupancy theoretical_occupancy(int registers, int shared_bytes, int block_threads, const GpuLimits& limits = {});

struct GpuFacts {
  std::vector<Kernel> kernels;  // every .entry of the PTX read
  CpuFacts host;                // the host code: its functions and call graph

  const Kernel* find(std::string_view symbol) const;
  // The kernels host function `symbol` can launch: those whose host stub it reaches through calls, tail jumps and
  // taken addresses (the launch `k<<<g, b>>>(...)` calls k's host stub, which hands its address to the runtime).
  std::vector<const Kernel*> launched_by(std::string_view symbol) const;
};

// Every .entry and .func of a PTX text, counted. ptxas's figures are left at -1 and 0.
std::vector<Kernel> parse_ptx(std::string_view ptx);
// What one PTX instruction does, in a few words, for an annotated listing ("shared load", "global load v4 (128-bit)",
// "barrier", "warp shuffle"); empty for what the facts do not count.
std::string describe_ptx(std::string_view instruction);
// Fills registers, spills, stack and shared memory of `kernels` from `ptxas -v`'s words.
void add_ptxas_usage(std::vector<Kernel>& kernels, std::string_view ptxas_output);

// Reads the PTX files nvcc kept (--keep) with `ptxas -v -arch=<gpu_arch>`, and the host objects with objdump.
// `ptxas`: its path (beside nvcc). Throws InspectError when a tool is missing or fails. `keep_usage`: ptxas's words
// are kept beside each PTX file (<file>.ptxas-<arch>.txt) and read from there next time: for the reference's cached
// build, whose ptxas run costs seconds (lab 7's templates) at every grading otherwise.
GpuFacts read_gpu_facts(const std::vector<std::filesystem::path>& ptx_files,
                        const std::vector<std::filesystem::path>& host_objects, const std::string& gpu_arch,
                        const std::string& ptxas, bool keep_usage = false);

}  // namespace grader
