// test_step_routes.cpp: every route by which a step's code can reach another graded function (steps/step_rules.h),
// read from code compiled here with the lab's own flags, as the grader compiles a submission. The hidden-style
// submissions under tests/submissions/ each take one route that calls nothing by name (a table of functions in
// data, a pointer variable, a vtable, an alias, an address stored at run time, a retouched copy, two hops of data)
// and must lose exactly the steps they swap, saying what was seen; the planted objects below take routes that do
// not link under the link policy (a dlsym by name, an ifunc) or need CUDA (a kernel launched through a table in host data).
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <regex>

#include "core/environment.h"
#include "core/tool.h"
#include "inspect/code_facts.h"
#include "spec/lab_spec.h"
#include "steps/step_code.h"
#include "steps/step_rules.h"
#include "temp_dir.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

const fs::path root = fs::path(TESTS_DIR) / "..";

fs::path lab_dir(const std::string& lab) {
  for (const auto& entry : fs::directory_iterator(root / "labs"))
    if (entry.path().filename().string().rfind(lab + "-", 0) == 0) return entry.path();
  FAIL("no lab " << lab);
  return {};
}

// `tree`'s student files (or `source` alone, named as the lab's first) compiled with the lab's flags, then read.
std::vector<StepFinding> findings_of(const LabSpec& spec, const fs::path& tree, const TempDir& dir) {
  const Environment env = discover_environment(root);
  std::vector<fs::path> objects;
  for (const auto& name : spec.build.student_files) {
    const fs::path object = dir.path() / (tree.filename().string() + "-" + name + ".o");
    std::vector<std::string> argv = {env.cxx, "-std=c++20"};
    argv.insert(argv.end(), spec.build.flags.begin(), spec.build.flags.end());
    argv.insert(argv.end(), {"-I" + spec.dir.string(), "-c", (tree / name).string(), "-o", object.string()});
    const ToolResult built = run_tool(argv, dir.path(), 300);
    INFO(built.output);
    REQUIRE_MESSAGE(built.ok(), tree.string() << " does not compile");
    objects.push_back(object);
  }
  const CodeFacts facts = read_code_facts(env, spec, objects, "");
  REQUIRE_MESSAGE(facts.read(), facts.unavailable);
  return check_step_rules(spec.steps, submission_code(facts));
}

std::string listed(const std::vector<StepFinding>& findings) {
  std::string text;
  for (const auto& finding : findings) text += "\n  " + finding.variant + ": " + finding.what;
  return text;
}

struct Attack {
  std::string lab, submission;
  std::vector<std::string> caught;
  std::string pattern;  // what every caught step's finding says
};

}  // namespace

TEST_CASE("hidden-style submissions: each route to another graded function is caught, and only the steps it swaps") {
  const std::vector<Attack> attacks = {
      {"lab2", "reaches_best_through_table", {"kij"}, "kij holds the address of matmul_best in its data"},
      {"lab2", "reaches_best_through_pointer", {"ikj"}, "ikj holds the address of matmul_best in its data"},
      {"lab2", "reaches_best_through_vtable", {"kij"}, "matmul_kij (holds the address of matmul_best|calls matmul_best|branches through a pointer)"},
      {"lab2", "alias_of_best", {"ikj"}, "matmul_ikj and matmul_best are one function under two names"},
      {"lab2", "stores_best_at_run_time", {"ikj"}, "matmul_ikj (branches through a pointer .* the address of matmul_best is taken|calls matmul_best)"},
      {"lab2", "copies_best_retouched", {"kij"}, "matmul_kij compiles to the same code as matmul_best"},
      {"lab1", "reaches_unrolled_through_struct", {"contiguous"}, "matvec_contiguous holds the address of matvec_unrolled in its data"},
  };
  TempDir dir("test-step-routes");
  for (const auto& attack : attacks) {
    CAPTURE(attack.submission);
    const LabSpec spec = load_lab_spec(lab_dir(attack.lab));
    const auto findings = findings_of(spec, root / "tests" / "submissions" / attack.lab / attack.submission, dir);
    MESSAGE(attack.lab << "/" << attack.submission << ":" << listed(findings));
    std::vector<std::string> variants;
    for (const auto& finding : findings) {
      variants.push_back(finding.variant);
      CHECK_MESSAGE(std::regex_search(finding.what, std::regex(attack.pattern)), finding.what);
    }
    CHECK(variants == attack.caught);
  }
}

TEST_CASE("the mid-tier submissions of the CPU stepwise labs: no step caught (the references: test_inspect_labs)") {
  TempDir dir("test-step-routes-honest");
  for (const std::string tree : {"bench/mid_tier/lab1-matvec", "bench/mid_tier/lab4-blocking"}) {
    CAPTURE(tree);
    const std::string lab = fs::path(tree).filename().string().substr(0, 4);
    const auto findings = findings_of(load_lab_spec(lab_dir(lab)), root / tree, dir);
    CHECK_MESSAGE(findings.empty(), "findings:" << listed(findings));
  }
}

TEST_CASE("a step that names the best function in a string (a dlsym by name) reaches it") {
  // Refused at the link in a grading (dlsym is a forbidden call); the reader still sees the route.
  TempDir dir("test-step-routes-dlsym");
  fs::create_directories(dir.path() / "by_name");
  std::ofstream(dir.path() / "by_name" / "loop_order.cpp") << R"(
#include "loop_order.h"
extern "C" void* dlsym(void*, const char*);
using Multiply = void (*)(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t);
void matmul_best(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i) for (std::int64_t p = 0; p < k; ++p) for (std::int64_t j = 0; j < n; ++j)
    c[i * n + j] += a[i * k + p] * b[p * n + j];
}
#define ORDER(name, o1, o2, o3) void name(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) { \
  for (std::int64_t o1 = 0; o1 < (#o1[0] == 'i' ? m : #o1[0] == 'j' ? n : k); ++o1) \
  for (std::int64_t o2 = 0; o2 < (#o2[0] == 'i' ? m : #o2[0] == 'j' ? n : k); ++o2) \
  for (std::int64_t o3 = 0; o3 < (#o3[0] == 'i' ? m : #o3[0] == 'j' ? n : k); ++o3) c[i * n + j] += a[i * k + p] * b[p * n + j]; }
ORDER(matmul_ijk, i, j, p) ORDER(matmul_jik, j, i, p) ORDER(matmul_jki, j, p, i) ORDER(matmul_kij, p, i, j) ORDER(matmul_kji, p, j, i)
void matmul_ikj(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  reinterpret_cast<Multiply>(dlsym(nullptr, "_Z11matmul_bestPKdS0_Pdlll"))(a, b, c, m, n, k);
}
)";
  const LabSpec spec = load_lab_spec(lab_dir("lab2"));
  const auto findings = findings_of(spec, dir.path() / "by_name", dir);
  INFO("findings:" << listed(findings));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].variant == "ikj");
  CHECK(findings[0].what.find("matmul_ikj holds the address of matmul_best in its data (.LC") != std::string::npos);
}

TEST_CASE("a step that is an ifunc whose resolver returns the best function reaches it") {
  // Refused at the link in a grading (an ifunc's resolver runs before main); the reader still sees the route.
  TempDir dir("test-step-routes-ifunc");
  fs::create_directories(dir.path() / "ifunc");
  std::ofstream(dir.path() / "ifunc" / "loop_order.cpp") << R"(
#include "loop_order.h"
using Multiply = void (*)(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t);
void matmul_best(const double* a, const double* b, double* c, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t i = 0; i < m; ++i) for (std::int64_t p = 0; p < k; ++p) for (std::int64_t j = 0; j < n; ++j)
    c[i * n + j] += a[i * k + p] * b[p * n + j];
}
extern "C" Multiply pick_ikj() { return &matmul_best; }
void matmul_ikj(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t) __attribute__((ifunc("pick_ikj")));
)";
  const LabSpec spec = load_lab_spec(lab_dir("lab2"));
  const auto findings = findings_of(spec, dir.path() / "ifunc", dir);
  INFO("findings:" << listed(findings));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].variant == "ikj");
  CHECK(findings[0].what.find("matmul_best") != std::string::npos);
}

TEST_CASE("a CUDA step that launches the best function's kernel through a table in host data launches it") {
  const Environment env = discover_environment(root);
  if (!env.nvcc) {
    MESSAGE("no nvcc here: the CUDA route is not read");
    return;
  }
  TempDir dir("test-step-routes-cuda");
  const fs::path source = dir.path() / "route.cu", object = dir.path() / "route.o";
  std::ofstream(source) << R"(
__global__ void best_kernel(float* x) { x[threadIdx.x] = __shfl_down_sync(0xffffffffu, x[threadIdx.x], 1); }
__global__ void own_kernel(float* x) { x[threadIdx.x] += 1; }
namespace {
void (*const volatile launchers[])(float*) = {own_kernel, best_kernel};
}
void reduce_best(float* x) { best_kernel<<<1, 32>>>(x); }
void reduce_step(float* x) {
  void* args[] = {&x};
  cudaLaunchKernel(reinterpret_cast<const void*>(launchers[1]), dim3(1), dim3(32), args, 0, nullptr);
}
)";
  const ToolResult built = run_tool({*env.nvcc, "-std=c++20", "-arch=sm_90", "--keep", "--keep-dir", dir.path().string(),
                                     "-c", source.string(), "-o", object.string()},
                                    dir.path(), 600);
  INFO(built.output);
  REQUIRE(built.ok());
  std::ifstream ptx_file(dir.path() / "route.ptx");
  REQUIRE(ptx_file.good());
  CodeFacts facts;
  facts.cuda = true;
  facts.kernels = parse_ptx(std::string(std::istreambuf_iterator<char>(ptx_file), {}));
  facts.cpu = read_cpu_facts({object});
  const CpuFunction* step = facts.cpu.find_by_name("reduce_step");
  REQUIRE(step != nullptr);
  bool launches_best = false;
  const GpuFacts gpu = facts.gpu();
  for (const Kernel* kernel : gpu.launched_by(step->symbol)) launches_best |= plain_name(kernel->symbol) == "best_kernel";
  CHECK(launches_best);

  StepsSpec steps;
  steps.best = "reduce_best";
  steps.steps.push_back(StepRule{"first", "reduce_first", {}, {}, "", {}, 0, 1, 1});
  steps.steps.push_back(StepRule{"step", "reduce_step", {}, {"shuffles"}, "", {}, 0, 2, 1});
  const auto findings = check_step_rules(steps, submission_code(facts));
  INFO("findings:" << listed(findings));
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].variant == "step");
  CHECK(findings[0].what.find("best_kernel") != std::string::npos);
}
