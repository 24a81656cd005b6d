// test_inspect_cpu.cpp: facts of CPU code (grader/src/inspect/facts.h), read from planted sources compiled here with
// the system g++ and fixed target flags (-mavx2 -mfma, never -march=native), so the instructions they compile to
// do not depend on the machine: a scalar and a vectorised inner loop, one accumulator and four, a call graph with a
// static helper, a tail call and an OpenMP region, and the code hash of identical and different functions.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/tool.h"
#include "inspect/facts.h"
#include "inspect/look.h"
#include "inspect/x86_instruction.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

// Compiles `source` to an object with `flags` and reads its facts.
CpuFacts facts_of(const TempDir& dir, const std::string& name, const std::string& source, std::vector<std::string> flags) {
  const fs::path cpp = dir.path() / (name + ".cpp"), object = dir.path() / (name + ".o");
  std::ofstream(cpp) << source;
  std::vector<std::string> argv = {"g++", "-std=c++20", "-c", cpp.string(), "-o", object.string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  const ToolResult built = run_tool(argv, dir.path(), 120);
  INFO(built.output);
  REQUIRE(built.ok());
  return read_cpu_facts({object});
}

const CpuFunction& function(const CpuFacts& facts, const std::string& name) {
  const CpuFunction* found = facts.find_by_name(name);
  REQUIRE_MESSAGE(found != nullptr, "no function " << name);
  return *found;
}

const std::string dots = R"(
double dot_one(const double* a, const double* b, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}
double dot_four(const double* a, const double* b, long n) {
  double acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
  long i = 0;
  for (; i + 4 <= n; i += 4) {
    acc0 += a[i] * b[i];
    acc1 += a[i + 1] * b[i + 1];
    acc2 += a[i + 2] * b[i + 2];
    acc3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) acc0 += a[i] * b[i];
  return (acc0 + acc1) + (acc2 + acc3);
}
)";

}  // namespace

TEST_CASE("a scalar inner loop: one accumulator, or four") {
  TempDir dir("test-inspect-cpu");
  // No vectoriser: the loops stay scalar, each sum one FMA into its own register.
  const CpuFacts facts = facts_of(dir, "dots", dots, {"-O2", "-fno-tree-vectorize", "-mavx2", "-mfma", "-ffp-contract=fast"});

  const CpuFunction& one = function(facts, "dot_one");
  REQUIRE(one.hot_loop);
  CHECK(one.hot_loop->fp.widest_bits() == 64);
  CHECK(one.hot_loop->fp.scalar >= 1);
  CHECK(one.hot_loop->fp.packed() == 0);
  CHECK(one.hot_loop->fp.fma == 1);
  CHECK(one.hot_loop->fp.fma_scalar == 1);
  CHECK(one.hot_loop->accumulators == 1);
  CHECK(one.hot_loop->loads_per_fma() == doctest::Approx(2.0));  // a[i] and b[i] for each FMA
  CHECK(one.hot_loop->stores == 0);

  const CpuFunction& four = function(facts, "dot_four");
  REQUIRE(four.hot_loop);
  CHECK(four.hot_loop->fp.widest_bits() == 64);
  CHECK(four.hot_loop->fp.fma == 4);
  CHECK(four.hot_loop->accumulators == 4);
  CHECK(four.hot_loop->loads_per_fma() == doctest::Approx(2.0));
  // Two innermost loops (the unrolled one and the remainder): the hot one is the one with more arithmetic.
  CHECK(four.loops.size() >= 2);
}

TEST_CASE("with line tables (-g1), the hot loop's instructions sit under the source lines they came from") {
  TempDir dir("test-inspect-cpu");
  const std::vector<std::string> flags = {"-O2", "-fno-tree-vectorize", "-mavx2", "-mfma", "-ffp-contract=fast"};
  std::vector<std::string> lined_flags = flags;
  lined_flags.push_back("-g1");
  const CpuFacts plain = facts_of(dir, "dots", dots, flags);
  const CpuFacts lined = facts_of(dir, "dots", dots, lined_flags);
  SourceFiles files;
  std::istringstream text(dots);
  for (std::string line; std::getline(text, line);) files["dots.cpp"].push_back(line);

  const CpuFunction& one = function(lined, "dot_one");
  REQUIRE(one.hot_loop);
  CHECK(one.code_hash == function(plain, "dot_one").code_hash);  // the same code, with or without line tables
  const std::vector<SourceLine> listing = source_listing(*one.hot_loop, files);
  const auto sum = std::find_if(listing.begin(), listing.end(), [](const SourceLine& line) {
    return line.text.find("s += a[i] * b[i]") != std::string::npos;
  });
  REQUIRE(sum != listing.end());
  CHECK(sum->location.rfind("dots.cpp:", 0) == 0);
  CHECK(std::any_of(sum->instructions.begin(), sum->instructions.end(), [](const SourceLine::Instruction& x) {
    return x.fp && x.text.find("vfmadd") != std::string::npos;
  }));
  // Every instruction of the loop is listed once, under some line.
  std::size_t listed = 0;
  for (const auto& line : listing) listed += line.instructions.size();
  CHECK(listed == one.hot_loop->listing.size());
  // Without line tables there is nothing to put the instructions under.
  CHECK(source_listing(*function(plain, "dot_one").hot_loop, files).empty());
}

TEST_CASE("a vectorised inner loop is packed, on ymm registers with AVX2") {
  TempDir dir("test-inspect-cpu");
  const std::string source = R"(
void axpy(double* y, const double* x, double a, long n) {
  for (long i = 0; i < n; ++i) y[i] += a * x[i];
}
)" + dots;
  const CpuFacts facts = facts_of(dir, "vector", source, {"-O3", "-mavx2", "-mfma", "-ffast-math", "-fno-unroll-loops"});

  const CpuFunction& axpy = function(facts, "axpy");
  REQUIRE(axpy.hot_loop);
  CHECK(axpy.hot_loop->fp.widest_bits() == 256);
  CHECK(axpy.hot_loop->fp.packed256 >= 1);
  CHECK(axpy.hot_loop->fp.fma >= 1);
  CHECK(axpy.hot_loop->stores >= 1);
  CHECK(axpy.hot_loop->accumulators == 0);  // y[i] is updated in memory: no running sum

  // The same one-sum source, vectorised: one vector register of four partial sums.
  const CpuFunction& one = function(facts, "dot_one");
  REQUIRE(one.hot_loop);
  CHECK(one.hot_loop->fp.widest_bits() == 256);
  CHECK(one.hot_loop->fp.fma_scalar == 0);
  CHECK(one.hot_loop->accumulators >= 1);
}

TEST_CASE("the call graph: static helpers, tail calls, taken addresses and OpenMP regions") {
  TempDir dir("test-inspect-cpu");
  const std::string source = R"(
static double __attribute__((noinline)) helper(const double* a, long n) {
  double s = 0;
  for (long i = 0; i < n; ++i) s += a[i] * a[i];
  return s;
}
double __attribute__((noinline)) best(const double* a, long n) { return helper(a, n) * 2; }
double swapped(const double* a, long n) { return best(a, n); }
double direct(const double* a, long n) { return helper(a, n) + 1; }
void scale(double* y, long n) {
#pragma omp parallel for
  for (long i = 0; i < n; ++i) y[i] *= 2;
}
)";
  const CpuFacts facts = facts_of(dir, "graph", source, {"-O2", "-fopenmp", "-fno-ipa-icf"});

  const CpuFunction& swapped = function(facts, "swapped");
  CHECK(std::find(swapped.calls.begin(), swapped.calls.end(), function(facts, "best").symbol) != swapped.calls.end());
  CHECK_FALSE(swapped.hot_loop);  // its own code has no loop: the loop it runs lies in what it reaches
  const auto hot = facts.hot_loop(swapped.symbol);
  REQUIRE(hot);
  CHECK(hot->function == function(facts, "helper").symbol);

  const auto reached = facts.reachable_symbols(swapped.symbol);
  CHECK(std::find(reached.begin(), reached.end(), function(facts, "helper").symbol) != reached.end());
  CHECK_FALSE(function(facts, "helper").global);  // static

  const CpuFunction& direct = function(facts, "direct");
  CHECK(std::find(direct.calls.begin(), direct.calls.end(), function(facts, "helper").symbol) != direct.calls.end());
  CHECK(std::find(direct.calls.begin(), direct.calls.end(), function(facts, "best").symbol) == direct.calls.end());

  const CpuFunction& scale = function(facts, "scale");
  CHECK(scale.openmp_regions == 1);
  REQUIRE(scale.references.size() == 1);  // the region's outlined body, handed to GOMP_parallel
  CHECK(scale.references[0].find("._omp_fn.") != std::string::npos);
  CHECK(facts.reachable(scale.symbol).size() == 2);
  CHECK(facts.hot_loop(scale.symbol).has_value());
  CHECK(function(facts, "direct").openmp_regions == 0);
}

TEST_CASE("functions that compile to the same code have the same hash, wherever they lie") {
  TempDir dir("test-inspect-cpu");
  const std::string source = R"(
double first(const double* a, long n) { double s = 0; for (long i = 0; i < n; ++i) s += a[i]; return s; }
double other(const double* a, long n) { double s = 1; for (long i = 0; i < n; ++i) s *= a[i]; return s; }
double second(const double* a, long n) { double s = 0; for (long i = 0; i < n; ++i) s += a[i]; return s; }
)";
  const CpuFacts kept = facts_of(dir, "kept", source, {"-O2", "-fno-ipa-icf"});
  CHECK(function(kept, "first").code_hash == function(kept, "second").code_hash);
  CHECK(function(kept, "first").code_hash != function(kept, "other").code_hash);
  CHECK(function(kept, "first").address != function(kept, "second").address);

  // With identical code folding allowed (GCC's default at -O2), the second is kept, made an alias of the first or
  // a jump to it: in every case the facts tell the two apart from different code.
  const CpuFacts folded = facts_of(dir, "folded", source, {"-O2"});
  const CpuFunction* second = folded.find_by_name("second");
  REQUIRE(second != nullptr);
  const auto reached = folded.reachable_symbols(second->symbol);
  const CpuFunction& first = function(folded, "first");
  CHECK((second == &first || second->code_hash == first.code_hash ||
         std::find(reached.begin(), reached.end(), first.symbol) != reached.end()));
}

TEST_CASE("the shape hash: a copy with other registers, independent instructions reordered or a nop is the same shape") {
  const std::string text = R"(
SYMBOL TABLE:
0000000000000000 g     F .text	0000000000000010 original
0000000000000010 g     F .text	0000000000000010 retouched
0000000000000020 g     F .text	0000000000000010 changed

Disassembly of section .text:

0000000000000000 <original>:
   0:	mov    %rdi,%rax
   3:	add    $0x8,%rsi
   7:	vaddsd %xmm1,%xmm0,%xmm0
   b:	jne    3 <original+0x3>
   d:	ret

0000000000000010 <retouched>:
  10:	mov    %rdi,%rcx
  13:	nop
  14:	vaddsd %xmm3,%xmm2,%xmm2
  18:	mov    %rdx,%rdx
  1b:	add    $0x8,%rdx
  1f:	jne    14 <retouched+0x4>
  21:	ret

0000000000000030 <changed>:
  30:	mov    %rdi,%rax
  33:	add    $0x8,%rsi
  37:	vmulsd %xmm1,%xmm0,%xmm0
  3b:	jne    33 <changed+0x3>
  3d:	ret
)";
  const CpuFacts facts = parse_objdump(text, "planted.o");
  const CpuFunction& original = function(facts, "original");
  const CpuFunction& retouched = function(facts, "retouched");
  CHECK(original.code_hash != retouched.code_hash);
  CHECK(original.shape_hash == retouched.shape_hash);
  CHECK(function(facts, "changed").shape_hash != original.shape_hash);  // a different instruction is different code
}

TEST_CASE("data: what a table, a pointer and a string hold is reached; taken addresses and branches through pointers") {
  TempDir dir("test-inspect-cpu-data");
  const CpuFacts facts = facts_of(dir, "data", R"(
void target(double* a) { a[0] += 1; }
void other(double* a) { a[0] *= 2; }
static void (*const volatile table[])(double*) = {other, target};
void (*volatile pointer)(double*) = nullptr;
const char* volatile name = "_Z6targetPd";
void through_table(double* a) { table[1](a); }
void stores(double* a) { pointer = &target; a[0] = 0; }
void through_pointer(double* a) { pointer(a); }
const char* by_name() { return name; }
)", {"-O2"});
  const auto reaches = [&](const std::string& from, const std::string& to) {
    const auto reached = facts.reachable_symbols(function(facts, from).symbol);
    return std::find(reached.begin(), reached.end(), function(facts, to).symbol) != reached.end();
  };
  CHECK(reaches("through_table", "target"));
  CHECK(reaches("through_table", "other"));  // the table is one place, whichever entry is used
  CHECK(reaches("by_name", "target"));       // through the pointer variable, to the string that names it
  CHECK_FALSE(reaches("through_pointer", "target"));  // stored at run time: no data holds it
  CHECK(function(facts, "through_pointer").indirect_branches.size() == 1);
  CHECK(function(facts, "through_table").indirect_branches.size() == 1);
  CHECK(function(facts, "stores").indirect_branches.empty());
  std::set<std::string> taken;
  for (const auto& address : facts.taken) taken.insert(plain_name(address.function));
  CHECK(taken == std::set<std::string>{"other", "target"});
}

TEST_CASE("objdump's words: prefixes, padding, loads and stores, accumulators") {
  CHECK(decode_x86("data16 cs nopw 0x0(%rax,%rax,1)").padding);
  const X86Instruction fma = decode_x86("vfmadd231pd (%rsi,%rax,8),%ymm1,%ymm0");
  CHECK(fma.fp.packed256 == 1);
  CHECK(fma.fp.fma == 1);
  CHECK(fma.loads);
  CHECK_FALSE(fma.stores);
  CHECK(fma.accumulates);
  CHECK(fma.destination == "v0");
  const X86Instruction store = decode_x86("vmovupd %zmm0,(%rdi,%rax,1)");
  CHECK(store.stores);
  CHECK_FALSE(store.loads);
  CHECK(store.fp.total() == 0);
  const X86Instruction add = decode_x86("addsd %xmm1,%xmm0");
  CHECK(add.fp.scalar == 1);
  CHECK(add.accumulates);
  CHECK_FALSE(decode_x86("vaddpd %ymm2,%ymm3,%ymm4").accumulates);  // a fresh sum, not a running one
  CHECK(decode_x86("vpaddd %ymm2,%ymm3,%ymm3").fp.total() == 0);   // integer
  const X86Instruction call = decode_x86("notrack call *0x8(%rax)");
  CHECK(call.is_call);
  CHECK(call.loads);
  CHECK(normalise_operands("-0x39b(%rip),%rdi        # 0 <_Z3parPdl._omp_fn.0>") == "(%rip),%rdi");
  CHECK(normalise_operands("140 <_Z8four_dotPKdS0_l+0x4>").empty());
}

TEST_CASE("names: demangled, and without their parameters") {
  CHECK(demangle("_Z15matvec_unrolledPKdS0_Pdll") == "matvec_unrolled(double const*, double const*, double*, long, long)");
  CHECK(plain_name("_Z15matvec_unrolledPKdS0_Pdll") == "matvec_unrolled");
  CHECK(plain_name("matmul") == "matmul");
  CHECK(plain_name("_Z3parPdl._omp_fn.0") == "par");
  CHECK(plain_name("_ZN12_GLOBAL__N_112naive_kernelEPKfS1_Pfiii") == "(anonymous namespace)::naive_kernel");
  CHECK(plain_name("_ZN12_GLOBAL__N_111launch_gridILi8EEEvi") == "(anonymous namespace)::launch_grid<8>");
}

TEST_CASE("objdump missing or failing is an InspectError, not a crash") {
  CHECK_THROWS_AS(read_cpu_facts({"/nonexistent/object.o"}), InspectError);
}
