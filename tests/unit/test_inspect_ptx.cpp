// test_inspect_ptx.cpp: facts of CUDA kernels (grader/src/inspect/facts.h). A fixed PTX text and ptxas output are read
// everywhere; planted kernels (shared memory or none, warp shuffles, tensor cores, vector loads) are compiled here
// with nvcc -ptx and read with ptxas -v, and their host object's call graph says which kernels each host function
// launches. Without nvcc the planted part exits 77 (skipped, with the reason).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "core/environment.h"
#include "core/tool.h"
#include "inspect/facts.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

const char* fixed_ptx = R"(
.version 8.0
.target sm_90
.address_size 64

.func  (.param .b32 func_retval0) _Z6helperf(
	.param .b32 _Z6helperf_param_0
)
{
	.reg .f32 	%f<3>;
	ld.param.f32 	%f1, [_Z6helperf_param_0];
	shfl.sync.down.b32 	%f2, %f1, 16, 31, -1;
	st.param.f32 	[func_retval0+0], %f2;
	ret;
}

.visible .entry _Z4tilePKfPf(
	.param .u64 _Z4tilePKfPf_param_0,
	.param .u64 _Z4tilePKfPf_param_1
)
.maxntid 128, 1, 1
{
	.reg .f32 	%f<9>;
	.reg .b64 	%rd<5>;
	.shared .align 4 .b8 _ZZ4tileE1t[512];
	ld.global.nc.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd1];
$L__BB0_1:
	st.shared.f32 	[%rd2], %f1;
	bar.sync 	0;
	ld.shared.f32 	%f5, [%rd2+4];
	fma.rn.f32 	%f6, %f5, %f2, %f6;
	@%p1 bra 	$L__BB0_1;
	{ // callseq 0
	call.uni (retval0), _Z6helperf, (param0);
	} // callseq 0
	add.f64 	%fd1, %fd2, %fd3;
	cvt.rna.tf32.f32 	%r1, %f6;
	red.global.add.f32 	[%rd3], %f6;
	st.global.v2.f32 	[%rd4], {%f6, %f7};
	ret;
}
)";

const char* fixed_ptxas = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z4tilePKfPf' for 'sm_90'
ptxas info    : Function properties for _Z4tilePKfPf
    8 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 512 bytes smem, 360 bytes cmem[0]
)";

}  // namespace

TEST_CASE("a PTX text's kernels, counted; a called .func's instructions count in its kernel") {
  std::vector<Kernel> kernels = parse_ptx(fixed_ptx);
  REQUIRE(kernels.size() == 1);  // the .func is no kernel
  const Kernel& k = kernels[0];
  CHECK(k.symbol == "_Z4tilePKfPf");
  CHECK(k.max_threads == 128);
  CHECK(k.global_loads.v4 == 1);
  CHECK(k.global_loads.widest_bits == 128);
  CHECK(k.global_stores.v2 == 1);
  CHECK(k.global_stores.widest_bits == 64);
  CHECK(k.shared_loads == 1);
  CHECK(k.shared_stores == 1);
  CHECK(k.barriers == 1);
  CHECK(k.shuffles == 1);  // in the helper it calls
  CHECK(k.atomics == 1);   // red.global.add
  CHECK(k.fp32 == 1);
  CHECK(k.fp64 == 1);
  CHECK(k.tf32_conversions == 1);
  CHECK(k.tensor == 0);
  CHECK(k.loops == 1);
  CHECK(k.registers == -1);  // until ptxas says

  add_ptxas_usage(kernels, fixed_ptxas);
  CHECK(kernels[0].registers == 40);
  CHECK(kernels[0].shared_bytes == 512);
  CHECK(kernels[0].spill_store_bytes == 8);
  CHECK(kernels[0].spill_load_bytes == 4);
  CHECK(kernels[0].stack_bytes == 8);

  CHECK(describe_ptx("ld.global.nc.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd1];") == "global load, v4 (128-bit)");
  CHECK(describe_ptx("bar.sync 	0;") == "barrier");
  CHECK(describe_ptx("bar.warp.sync 	-1;").empty());  // __syncwarp is no block barrier
  CHECK(describe_ptx("mov.u32 	%r1, %tid.x;").empty());
}

TEST_CASE("theoretical occupancy on sm_90, by the documented formula") {
  // 32 registers, no shared memory, 256 threads: 8 blocks of 8 warps fill all 64 warps.
  Occupancy full = theoretical_occupancy(32, 0, 256);
  CHECK(full.fraction == doctest::Approx(1.0));
  // 128 registers a thread: 16384 a warp of 256-register units, 4 warps per SM... 65536 / (128*32) = 16 warps.
  Occupancy registers = theoretical_occupancy(128, 0, 256);
  CHECK(registers.fraction == doctest::Approx(16.0 / 64));
  CHECK(registers.limited_by == "registers");
  // 100 KiB of shared memory a block: two blocks fit in 228 KiB.
  Occupancy shared = theoretical_occupancy(32, 100 * 1024, 256);
  CHECK(shared.blocks_per_sm == 2);
  CHECK(shared.limited_by == "shared memory");
  // 32 threads a block: at most 32 blocks, half the warps.
  Occupancy small = theoretical_occupancy(16, 0, 32);
  CHECK(small.fraction == doctest::Approx(0.5));
  CHECK(small.limited_by == "blocks per SM");
}

TEST_CASE("planted kernels, compiled with nvcc: shared memory or none, shuffles, tensor cores, launches") {
  Environment env = discover_environment(std::nullopt);
  if (!env.nvcc) {
    std::cout << "skipped: no nvcc on this machine (the planted kernels need it to compile)\n";
    std::exit(77);
  }
  TempDir dir("test-inspect-ptx");
  const std::string source = R"(
#include <mma.h>
__global__ void plain(const float* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * 2.f;
}
__global__ void tiled(const float* a, float* b, int n) {
  __shared__ float t[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  t[threadIdx.x] = i < n ? a[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) t[threadIdx.x] += t[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(b, t[0]);
}
__global__ void shuffled(const float4* a, float* b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 v = a[i];
  float s = v.x + v.y + v.z + v.w;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
  if ((threadIdx.x & 31) == 0) b[i >> 5] = s;
}
__global__ void tensor(const half* a, const half* b, float* c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}
void launch_plain(const float* a, float* b, int n) { plain<<<(n + 255) / 256, 256>>>(a, b, n); }
void launch_two(const float* a, float* b, int n) {
  tiled<<<(n + 255) / 256, 256>>>(a, b, n);
  shuffled<<<1, 32>>>(reinterpret_cast<const float4*>(a), b, n);
}
void through_helper(const float* a, float* b, int n) { launch_plain(a, b, n); }
)";
  const fs::path cu = dir.path() / "planted.cu";
  std::ofstream(cu) << source;
  const fs::path object = dir.path() / "planted.cu.o";
  // The grader's own compile: nvcc keeps the PTX beside the object (build/build.cpp).
  const ToolResult built = run_tool({*env.nvcc, "-std=c++20", "-arch=sm_90", "-O3", "-c", cu.string(), "-o", object.string(),
                                     "--keep", "--keep-dir", dir.path().string()},
                                    dir.path(), 300);
  INFO(built.output);
  REQUIRE(built.ok());
  REQUIRE(fs::exists(dir.path() / "planted.ptx"));
  const std::string ptxas = (fs::path(*env.nvcc).parent_path() / "ptxas").string();
  const GpuFacts facts = read_gpu_facts({dir.path() / "planted.ptx"}, {object}, "sm_90", ptxas);

  const Kernel* plain = facts.find("_Z5plainPKfPfi");
  const Kernel* tiled = facts.find("_Z5tiledPKfPfi");
  const Kernel* shuffled = facts.find("_Z8shuffledPK6float4Pfi");
  const Kernel* tensor = facts.find("_Z6tensorPK6__halfS1_Pf");
  REQUIRE(plain != nullptr);
  REQUIRE(tiled != nullptr);
  REQUIRE(shuffled != nullptr);
  REQUIRE(tensor != nullptr);

  CHECK(plain->registers > 0);
  CHECK(plain->shared_bytes == 0);
  CHECK(plain->shared_loads + plain->shared_stores == 0);
  CHECK(plain->barriers == 0);
  CHECK(plain->shuffles == 0);
  CHECK(plain->global_loads.scalar == 1);
  CHECK(plain->global_loads.widest_bits == 32);

  CHECK(tiled->shared_bytes == 1024);
  CHECK(tiled->shared_loads > 0);
  CHECK(tiled->shared_stores > 0);
  CHECK(tiled->barriers >= 2);
  CHECK(tiled->atomics == 1);
  CHECK(tiled->shuffles == 0);
  CHECK(tiled->loops >= 1);

  CHECK(shuffled->shuffles == 5);
  CHECK(shuffled->global_loads.v4 == 1);
  CHECK(shuffled->global_loads.widest_bits == 128);
  CHECK(shuffled->shared_bytes == 0);

  CHECK(tensor->tensor >= 1);
  CHECK(plain->tensor + tiled->tensor + shuffled->tensor == 0);

  const auto launched = [&](const std::string& name) {
    const CpuFunction* host = facts.host.find_by_name(name);
    REQUIRE(host != nullptr);
    std::vector<std::string> symbols;
    for (const Kernel* k : facts.launched_by(host->symbol)) symbols.push_back(k->symbol);
    return symbols;
  };
  CHECK(launched("launch_plain") == std::vector<std::string>{"_Z5plainPKfPfi"});
  CHECK(launched("through_helper") == std::vector<std::string>{"_Z5plainPKfPfi"});
  CHECK(launched("launch_two") == std::vector<std::string>{"_Z5tiledPKfPfi", "_Z8shuffledPK6float4Pfi"});
}
