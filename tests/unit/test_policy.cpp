// test_policy.cpp: the link policy (grader/src/policy/policy.h): glob_match, and apply_link_policy on tiny
// objects compiled at test time with the system compiler: an API object (the lab's baseline) defining
// `void api_fn()`, and student objects that each do one allowed or refused thing.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/tool.h"
#include "policy/policy.h"

namespace fs = std::filesystem;
using namespace grader;

namespace {

// A temporary folder of objects compiled from one-file sources, removed at scope exit.
class Objects {
 public:
  Objects() {
    std::string pattern = (fs::temp_directory_path() / "test_policy-XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    dir_ = pattern;
  }
  ~Objects() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  Objects(const Objects&) = delete;
  Objects& operator=(const Objects&) = delete;

  // Compiles `source` as name.cpp into name.o, as a lab's student file would be (-O2, position independent),
  // with `flags` after the grader's.
  fs::path compile(const std::string& name, const std::string& source, const std::vector<std::string>& flags = {}) {
    const fs::path cpp = dir_ / (name + ".cpp");
    const fs::path object = dir_ / (name + ".o");
    std::ofstream(cpp) << source;
    std::vector<std::string> argv = {"g++", "-std=c++20", "-O2", "-c", cpp.string(), "-o", object.string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const ToolResult result = run_tool(argv, dir_, 120);
    INFO(result.output);
    REQUIRE_MESSAGE(result.ok(), "g++ could not compile the test's " << name << ".cpp");
    return object;
  }

  // The object's symbols as `nm -P` lists them: "name type".
  std::string nm(const fs::path& object) const {
    const ToolResult result = run_tool({"nm", "-P", object.string()}, dir_, 60);
    REQUIRE(result.ok());
    return result.output;
  }

  // nm's type letter for `symbol`, or '?' when the object does not list it.
  const fs::path& dir() const { return dir_; }

  char symbol_type(const fs::path& object, const std::string& symbol) const {
    const std::string listing = "\n" + nm(object);
    const auto at = listing.find("\n" + symbol + " ");
    return at == std::string::npos ? '?' : listing[at + symbol.size() + 2];
  }

 private:
  fs::path dir_;
};

const char* kApiSource = "void api_fn() {}\n";

LabSpec cpu_lab() {
  LabSpec spec;
  spec.id = "lab9";
  spec.slug = "policy";
  spec.build.language = "c++";
  return spec;
}

bool has_finding(const PolicyResult& result, const std::string& symbol) {
  return std::any_of(result.findings.begin(), result.findings.end(),
                     [&](const PolicyFinding& f) { return f.symbol == symbol; });
}

// Every finding's symbol, for failure messages.
std::string finding_symbols(const PolicyResult& result) {
  std::string text;
  for (const auto& f : result.findings) text += f.symbol + " (" + f.rule + "); ";
  return text;
}

}  // namespace

TEST_CASE("glob_match") {
  CHECK(glob_match("fork", "fork"));
  CHECK_FALSE(glob_match("fork", "vfork"));
  CHECK_FALSE(glob_match("fork", "forks"));
  CHECK_FALSE(glob_match("fork", "for"));
  CHECK(glob_match("cublas*", "cublasSgemm_v2"));
  CHECK(glob_match("cublas*", "cublas"));
  CHECK_FALSE(glob_match("cublas*", "mycublas"));
  CHECK(glob_match("*", ""));
  CHECK(glob_match("*", "anything"));
  CHECK(glob_match("", ""));
  CHECK_FALSE(glob_match("", "a"));
  CHECK(glob_match("GOMP_*", "GOMP_parallel"));
  CHECK_FALSE(glob_match("GOMP_*", "GOMP"));
  CHECK(glob_match("omp_?et_*", "omp_get_wtime"));
  CHECK(glob_match("omp_?et_*", "omp_set_num_threads"));
  CHECK_FALSE(glob_match("omp_?et_*", "omp_in_parallel"));
  CHECK(glob_match("*sgemm*", "cublasSgemm_v2") == false);  // case matters
  CHECK(glob_match("*gemm*", "cublasSgemm_v2"));
  CHECK(glob_match("a*b*c", "aXXbYYc"));
  CHECK(glob_match("a*b*c", "abc"));
  CHECK_FALSE(glob_match("a*b*c", "acb"));
  CHECK(glob_match("a*c", "abcbc"));  // backtracking past a first false match
  CHECK(glob_match("**x", "x"));
  CHECK(glob_match("?", "x"));
  CHECK_FALSE(glob_match("?", ""));
  CHECK_FALSE(glob_match("?", "xy"));
}

TEST_CASE("the grader's default lists hold what the policy promises") {
  const auto& calls = default_forbidden_calls();
  for (const char* name : {"fork", "system", "dlopen", "socket", "execve", "popen", "pthread_create"}) {
    CAPTURE(name);
    CHECK(std::any_of(calls.begin(), calls.end(), [&](const std::string& p) { return glob_match(p, name); }));
  }
  const auto& definitions = forbidden_definitions();
  for (const char* name : {"main", "clock_gettime", "malloc", "omp_get_wtime", "cudaEventElapsedTime"}) {
    CAPTURE(name);
    CHECK(std::any_of(definitions.begin(), definitions.end(), [&](const std::string& p) { return glob_match(p, name); }));
  }
}

TEST_CASE("the API stays global, a helper is made local") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "int helper() { return 41; }\n"
                                           "void api_fn() { volatile int x = helper(); (void)x; }\n");
  REQUIRE(objects.symbol_type(student, "_Z6helperv") == 'T');
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::passed);
  CHECK(result.findings.empty());
  CHECK(result.details.empty());
  CHECK(result.localized == std::vector<std::string>{"_Z6helperv"});
  // The object was rewritten in place: helper is local now, api_fn still global.
  CHECK(objects.symbol_type(student, "_Z6helperv") == 't');
  CHECK(objects.symbol_type(student, "_Z6api_fnv") == 'T');
}

TEST_CASE("a global variable of the student's is made local too") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student", "int counter = 3;\nvoid api_fn() { ++counter; }\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  CHECK(result.verdict == Verdict::passed);
  CHECK(std::find(result.localized.begin(), result.localized.end(), "counter") != result.localized.end());
  CHECK(objects.symbol_type(student, "counter") == 'd');
}

TEST_CASE("inline functions and template instantiations (weak, COMDAT) pass, made local") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "#include <vector>\n"
                                           "template <class T> __attribute__((noinline)) T twice(T x) { return x + x; }\n"
                                           "inline __attribute__((noinline)) int once(int x) { static int n; return n += x; }\n"
                                           "void api_fn() { std::vector<int> v(3); v.push_back(1); volatile auto n = v.size();\n"
                                           "  (void)n; volatile int t = twice(3) + once(2); (void)t; }\n");
  auto weak_definitions = [&] {
    int count = 0;
    std::istringstream lines(objects.nm(student));
    for (std::string name, type; lines >> name >> type; lines.ignore(1000, '\n')) count += type == "W" || type == "u";
    return count;
  };
  REQUIRE(weak_definitions() > 0);  // std::vector<int>'s members, each in a COMDAT group
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::passed);
  CHECK(weak_definitions() == 0);
  CHECK(objects.symbol_type(student, "_Z6api_fnv") == 'T');
}

TEST_CASE("calling fork is refused, naming fork") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student", "#include <unistd.h>\nvoid api_fn() { (void)fork(); }\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "fork"));
  CHECK(result.details.find("fork") != std::string::npos);
  CHECK(result.details.find("student.o") != std::string::npos);
}

TEST_CASE("calling system is refused") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student", "#include <cstdlib>\nvoid api_fn() { (void)std::system(\"true\"); }\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "system"));
}

TEST_CASE("a lab's allow takes a call out of the grader's defaults") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student", "#include <unistd.h>\nvoid api_fn() { (void)fork(); }\n");
  LabSpec spec = cpu_lab();
  spec.policy.allow = {"fork"};
  PolicyResult result = apply_link_policy(spec, {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::passed);

  SUBCASE("but not out of the lab's own forbid") {
    spec.policy.forbid = {"fork"};
    result = apply_link_policy(spec, {api}, {student});
    CHECK(result.verdict == Verdict::policy_refused);
    CHECK(has_finding(result, "fork"));
  }
}

TEST_CASE("allowing one call leaves the other defaults in force") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "#include <cstdlib>\n#include <unistd.h>\n"
                                           "void api_fn() { (void)fork(); (void)std::system(\"true\"); }\n");
  LabSpec spec = cpu_lab();
  spec.policy.allow = {"fork"};
  const PolicyResult result = apply_link_policy(spec, {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "system"));
  CHECK_FALSE(has_finding(result, "fork"));
}

TEST_CASE("a lab's forbid adds refusals: a glob over a family") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student", "#include <cmath>\n"
                                                      "void api_fn() { volatile double d = 2; d = std::sqrt(d) + std::cbrt(d); }\n");
  LabSpec spec = cpu_lab();
  spec.policy.forbid = {"cbrt*"};
  const PolicyResult result = apply_link_policy(spec, {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "cbrt"));
}

TEST_CASE("defining clock_gettime is refused, even where a lab allows the name") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "struct timespec;\n"
                                           "extern \"C\" int clock_gettime(int, struct timespec*) { return 0; }\n"
                                           "void api_fn() {}\n");
  PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "clock_gettime"));
  CHECK(result.details.find("clock_gettime") != std::string::npos);

  // allow only takes calls out of the grader's default refusals; what a student may define is not a lab's call.
  LabSpec spec = cpu_lab();
  spec.policy.allow = {"clock_gettime", "*"};
  result = apply_link_policy(spec, {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "clock_gettime"));
}

TEST_CASE("defining main or malloc is refused") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path with_main = objects.compile("with_main", "void api_fn() {}\nint main() { api_fn(); }\n");
  CHECK(has_finding(apply_link_policy(cpu_lab(), {api}, {with_main}), "main"));
  const fs::path with_malloc = objects.compile("with_malloc",
                                               "#include <cstddef>\n"
                                               "extern \"C\" void* malloc(std::size_t) noexcept { return nullptr; }\n"
                                               "void api_fn() {}\n");
  CHECK(has_finding(apply_link_policy(cpu_lab(), {api}, {with_malloc}), "malloc"));
}

TEST_CASE("a weak definition of a forbidden name is refused too") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "struct timeval;\n"
                                           "extern \"C\" __attribute__((weak)) int gettimeofday(struct timeval*, void*) { return 0; }\n"
                                           "void api_fn() {}\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "gettimeofday"));
}

TEST_CASE("an indirect function (ifunc) of a forbidden name is refused") {
  // nm lists a GNU indirect function as 'i' whatever its binding; it is still a global definition the
  // dynamic linker resolves every call to, libstdc++'s steady_clock::now() included: linked into a
  // program, this object makes a one-second sleep measure 0 s. With its helpers static nothing else is
  // localized, so objcopy never runs and the ifunc stays global.
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "struct timespec { long s; long ns; };\n"
                                           "static int fake_clock(int, struct timespec* t) { t->s = 0; t->ns = 0; return 0; }\n"
                                           "extern \"C\" { static void* resolve_clock() { return (void*)&fake_clock; } }\n"
                                           "extern \"C\" int clock_gettime(int, struct timespec*) __attribute__((ifunc(\"resolve_clock\")));\n"
                                           "void api_fn() {}\n");
  REQUIRE(objects.symbol_type(student, "clock_gettime") == 'i');
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "clock_gettime"));
}

TEST_CASE("other ways to start a process are refused: fexecve, _Fork") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "#include <unistd.h>\n"
                                           "void api_fn() {\n"
                                           "  char* none[] = {nullptr};\n"
                                           "  if (_Fork() == 0) fexecve(3, none, none);\n"
                                           "}\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "_Fork"));
  CHECK(has_finding(result, "fexecve"));
}

TEST_CASE("a global object with a constructor is refused (.init_array)") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "#include <vector>\n"
                                           "std::vector<double> scratch(1024);\n"
                                           "void api_fn() { scratch[0] += 1; }\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, ".init_array"));
  CHECK(result.details.find(".init_array") != std::string::npos);
}

TEST_CASE("__attribute__((constructor)) is refused") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "static int ready;\n"
                                           "__attribute__((constructor)) static void before_main() { ready = 1; }\n"
                                           "void api_fn() { ready += 1; }\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, ".init_array"));
}

TEST_CASE("a function-local static with a constructor is fine") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "#include <vector>\n"
                                           "void api_fn() { static std::vector<double> scratch(1024); scratch[0] += 1; }\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::passed);
}

TEST_CASE("every student object is inspected and each finding names its file") {
  Objects objects;
  const fs::path api = objects.compile("api", "void api_fn() {}\nvoid api_other() {}\n");
  const fs::path clean = objects.compile("clean", "void api_fn() {}\n");
  const fs::path dirty = objects.compile("dirty", "#include <unistd.h>\nvoid api_other() { (void)fork(); }\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {clean, dirty});
  CHECK(result.verdict == Verdict::policy_refused);
  REQUIRE(result.findings.size() == 1);
  CHECK(result.findings[0].object == "dirty.o");
  CHECK(result.findings[0].readable == "fork");
}

TEST_CASE("a student object that defines none of the API: everything made local, no grader failure") {
  // A second student file of helpers, or a file whose functions have the wrong signature (other mangled
  // names): nothing stays global. objcopy 2.40 fails without a word on an empty --keep-global-symbols
  // file, which must not become an internal error; the link that follows reports the missing API.
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student", "int helper() { return 41; }\nvoid api_fn(int n) { (void)n; }\n");
  PolicyResult result;
  CHECK_NOTHROW(result = apply_link_policy(cpu_lab(), {api}, {student}));
  CHECK(result.verdict == Verdict::passed);
  CHECK(result.localized.size() == 2);
  CHECK(objects.symbol_type(student, "_Z6helperv") == 't');
  CHECK(objects.symbol_type(student, "_Z6api_fni") == 't');
}

TEST_CASE("only the objects that need it are rewritten") {
  // A helper localized in the first object must not send the second, which defines nothing global (all
  // of it static), through objcopy with an empty keep list.
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path first = objects.compile("first", "int helper() { return 1; }\nvoid api_fn() { (void)helper(); }\n");
  const fs::path second = objects.compile("second", "static int twice(int x) { return 2 * x; }\n"
                                                    "static int (*volatile keep)(int) = twice;\n");
  PolicyResult result;
  CHECK_NOTHROW(result = apply_link_policy(cpu_lab(), {api}, {first, second}));
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::passed);
  CHECK(result.localized == std::vector<std::string>{"_Z6helperv"});
  CHECK(objects.symbol_type(first, "_Z6helperv") == 't');
  CHECK(objects.symbol_type(first, "_Z6api_fnv") == 'T');
}

// --- Every import, header-only libraries, threads ---------------------------------------------------------

TEST_CASE("a weak reference to a forbidden call is refused: weak dlopen is a call of dlopen") {
  // `__attribute__((weak))` on a declaration leaves 'w' (weak undefined) instead of 'U'; dlopen lives in glibc
  // itself, so the reference resolves and the call works.
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "extern \"C\" void* dlopen(const char*, int) __attribute__((weak));\n"
                                           "void api_fn() { if (dlopen) dlopen(\"libc.so.6\", 2); }\n");
  REQUIRE(objects.symbol_type(student, "dlopen") == 'w');
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "dlopen"));
}

TEST_CASE("any ifunc is refused, whatever its name: its resolver runs before main") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "static int impl() { return 1; }\n"
                                           "extern \"C\" { static void* pick() { return (void*)&impl; } }\n"
                                           "extern \"C\" int my_choice() __attribute__((ifunc(\"pick\")));\n"
                                           "void api_fn() { (void)my_choice(); }\n");
  REQUIRE(objects.symbol_type(student, "my_choice") == 'i');
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "my_choice"));
  CHECK(result.details.find("before main") != std::string::npos);
}

TEST_CASE("forbid matches demangled definitions: a header-only library's instantiated templates") {
  // What CUB's device-wide kernels look like in a student object: templates of namespace cub, defined weak.
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student",
                                           "namespace cub { template <class T> T Sum(T a, T b) { return a + b; } }\n"
                                           "int (*volatile keep)(int, int) = &cub::Sum<int>;\n"
                                           "void api_fn() {}\n");
  LabSpec spec = cpu_lab();
  spec.policy.forbid = {"*cub::*"};
  const PolicyResult result = apply_link_policy(spec, {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(result.details.find("cub::Sum") != std::string::npos);
  // Without the rule the same object passes: the refusal is the lab's forbid, not something else.
  CHECK(apply_link_policy(cpu_lab(), {api}, {objects.compile("student2", "namespace cub { template <class T> T Sum(T a, "
                                                                         "T b) { return a + b; } }\nint (*volatile "
                                                                         "keep)(int, int) = &cub::Sum<int>;\nvoid api_fn() {}\n")})
            .verdict == Verdict::passed);
}

TEST_CASE("forbid_headers: a forbidden header is refused from the compiler's dependency list, however included") {
  // An inlined header-only library leaves no symbol; the header it came from is in the -MD list, even when
  // included through another header.
  Objects objects;
  fs::create_directories(objects.dir() / "include" / "cub" / "block");
  std::ofstream(objects.dir() / "include" / "cub" / "block" / "block_reduce.cuh")
      << "namespace cub { inline int BlockSum(int v) { return v; } }\n";
  std::ofstream(objects.dir() / "include" / "innocent.h") << "#include <cub/block/block_reduce.cuh>\n";
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student", "#include <innocent.h>\nint api_fn2(int v) { return cub::BlockSum(v); }\n"
                                                      "void api_fn() {}\n",
                                           {"-I" + (objects.dir() / "include").string(), "-MD", "-MF",
                                            dependency_file(objects.dir() / "student.o").string()});
  LabSpec spec = cpu_lab();
  spec.policy.forbid_headers = {"*/cub/*"};
  const PolicyResult result = apply_link_policy(spec, {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(result.details.find("cub/block/block_reduce.cuh") != std::string::npos);

  // The same source without the library passes; an object without a dependency list cannot be checked: refused.
  const fs::path clean = objects.compile("clean", "int api_fn2(int v) { return v; }\nvoid api_fn() {}\n",
                                         {"-MD", "-MF", dependency_file(objects.dir() / "clean.o").string()});
  CHECK(apply_link_policy(spec, {api}, {clean}).verdict == Verdict::passed);
  const fs::path undocumented = objects.compile("undocumented", "void api_fn() {}\n");
  const PolicyResult unchecked = apply_link_policy(spec, {api}, {undocumented});
  CHECK(unchecked.verdict == Verdict::policy_refused);
  CHECK(unchecked.details.find("dependency list") != std::string::npos);
}

TEST_CASE("which labs may start threads: GPU labs, and labs whose allow lets a thread starter through") {
  LabSpec spec = cpu_lab();
  CHECK_FALSE(lab_allows_threads(spec));
  spec.policy.allow = {"GOMP_*", "omp_*"};  // lab3
  CHECK(lab_allows_threads(spec));
  spec.policy.allow = {"pthread_create", "_ZNSt6thread*"};  // lab90-trust
  CHECK(lab_allows_threads(spec));
  spec.policy.forbid = {"pthread_create"};
  spec.policy.allow = {"pthread_create"};  // the lab's forbid wins
  CHECK_FALSE(lab_allows_threads(spec));
  LabSpec gpu = cpu_lab();
  gpu.gpu = true;  // the CUDA runtime starts threads of its own
  CHECK(lab_allows_threads(gpu));
}


// --- Issue 32: nothing but the API binds; no code outside main ---------------------------------------------------

namespace {

// Links `objects` (a harness first, as the grader links) into a program in the test's folder and runs it: its exit
// status, or -1 where it does not link.
int link_and_run(Objects& objects, const std::vector<fs::path>& inputs) {
  const fs::path program = objects.dir() / "program";
  std::vector<std::string> argv = {"g++"};
  for (const auto& input : inputs) argv.push_back(input.string());
  argv.insert(argv.end(), {"-o", program.string()});
  const ToolResult linked = run_tool(argv, objects.dir(), 120);
  INFO(linked.output);
  if (!linked.ok()) return -1;
  return run_tool({program.string()}, objects.dir(), 60).exit_code;
}

// A harness that times a call with libstdc++'s clock and uses std::vector<double> and an inline function of its
// own, as the lab kit does: it exits 0 when its clock and its vector behaved, 3 otherwise.
const char* kHarnessSource =
    "#include <chrono>\n#include <vector>\n"
    "inline int& calls() { static int n = 0; return n; }\n"
    "void api_fn();\n"
    "int main() {\n"
    "  const auto began = std::chrono::steady_clock::now();\n"
    "  api_fn();\n"
    "  std::vector<double> v(5);\n"
    "  v.resize(9);\n"
    "  ++calls();\n"
    "  const auto spent = std::chrono::steady_clock::now() - began;\n"
    "  return spent.count() > 0 && v.size() == 9 && calls() == 1 ? 0 : 3;\n"
    "}\n";

}  // namespace

TEST_CASE("a weak definition of a library function the harness calls is made local: the harness keeps its clock") {
  // The attack of issue 32: the linker binds the harness's call of steady_clock::now() to a definition in an
  // object before the shared library's, weak or not.
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path harness = objects.compile("harness", kHarnessSource);
  const fs::path student = objects.compile(
      "student",
      "#include <chrono>\n"
      "__attribute__((weak)) std::chrono::steady_clock::time_point std::chrono::steady_clock::now() noexcept {\n"
      "  return time_point(duration(0));\n"
      "}\n"
      "__attribute__((weak)) void vector_trap() __asm__(\"_ZNSt6vectorIdSaIdEE17_M_default_appendEm\");\n"
      "void vector_trap() { __builtin_trap(); }\n"
      "void api_fn() {}\n");
  const fs::path untouched = objects.dir() / "untouched.o";
  fs::copy_file(student, untouched);
  CHECK(link_and_run(objects, {harness, untouched}) != 0);  // the attack works on the object as compiled

  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::passed);
  CHECK(objects.symbol_type(student, "_ZNSt6chrono3_V212steady_clock3nowEv") == 't');
  CHECK(objects.symbol_type(student, "_ZNSt6vectorIdSaIdEE17_M_default_appendEm") == 't');
  CHECK(link_and_run(objects, {harness, student}) == 0);
}

TEST_CASE("GNU_UNIQUE and COMDAT definitions are made local; two student objects sharing inline code still link") {
  Objects objects;
  const fs::path api = objects.compile("api", "void api_fn() {}\nvoid api_other() {}\n");
  const fs::path harness = objects.compile("harness", kHarnessSource);
  // A GNU_UNIQUE definition of the harness's function-local static calls()::n (which would count from 41), and
  // std::vector<double> members that the harness instantiates too, in COMDAT groups of the same names.
  const char* first_source =
      "#include <vector>\n"
      "asm(\".section .data.forged,\\\"aw\\\"\\n.globl _ZZ5callsvE1n\\n.type _ZZ5callsvE1n, @gnu_unique_object\\n"
      "_ZZ5callsvE1n: .long 41\\n.text\\n\");\n"
      "void api_other();\n"
      "void api_fn() { std::vector<double> v(3); v.resize(7); api_other(); }\n";
  const fs::path first = objects.compile("first", first_source);
  const fs::path untouched = objects.compile("untouched", first_source);
  const fs::path second = objects.compile("second",
                                          "#include <vector>\n"
                                          "void api_other() { std::vector<double> v(2); v.resize(4); }\n");
  REQUIRE(objects.symbol_type(first, "_ZZ5callsvE1n") == 'u');
  CHECK(link_and_run(objects, {harness, untouched, second}) != 0);  // as compiled: a clash, or the harness miscounts
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {first, second});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::passed);
  CHECK(objects.symbol_type(first, "_ZZ5callsvE1n") == 'd');
  const ToolResult groups = run_tool({"readelf", "-g", first.string(), second.string()}, objects.dir(), 60);
  CHECK(groups.output.find("COMDAT") == std::string::npos);
  CHECK(link_and_run(objects, {harness, first, second}) == 0);
}

TEST_CASE("a common symbol cannot be made local: refused") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path student = objects.compile("student", "asm(\".comm _ZSt4cout, 272, 32\");\nvoid api_fn() {}\n");
  const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
  INFO(finding_symbols(result));
  CHECK(result.verdict == Verdict::policy_refused);
  CHECK(has_finding(result, "_ZSt4cout"));
  CHECK(result.details.find("could not be made local") != std::string::npos);
}

TEST_CASE("every way to run outside main is refused") {
  // Each source is a whole student file: the API, and one way in.
  struct Way {
    std::string name;
    std::string source;
    std::string finding;
  };
  const Way ways[] = {
      {".init", "extern \"C\" void early() {}\nasm(\".section .init,\\\"ax\\\",@progbits\\ncall early\\n.text\\n\");\n", ".init"},
      {".fini", "extern \"C\" void late() {}\nasm(\".section .fini,\\\"ax\\\",@progbits\\ncall late\\n.text\\n\");\n", ".fini"},
      {".preinit_array", "static void early() {}\n__attribute__((section(\".preinit_array\"), used)) static void (*entry)() = early;\n",
       ".preinit_array"},
      {".init_array with a priority",
       "static volatile int seen;\n__attribute__((constructor(101))) static void early() { seen = 1; }\n", ".init_array.00101"},
      {".fini_array", "static volatile int seen;\n__attribute__((destructor)) static void late() { seen = 1; }\n",
       ".fini_array"},
      {".ctors.*", "static void early() {}\n__attribute__((section(\".ctors.00042\"), used)) static void (*entry)() = early;\n",
       ".ctors.00042"},
      {".dtors", "static void late() {}\n__attribute__((section(\".dtors\"), used)) static void (*entry)() = late;\n", ".dtors"},
      {"an INIT_ARRAY section under another name",
       "extern \"C\" void early() {}\nasm(\".section .my.table,\\\"aw\\\",@init_array\\n.quad early\\n.text\\n\");\n", ".my.table"},
      {"a local ifunc", "static int impl() { return 1; }\nextern \"C\" { static void* pick() { return (void*)&impl; } }\n"
                        "static int choice() __attribute__((ifunc(\"pick\")));\nint use() { return choice(); }\n",
       "_ZL6choicev"},
      {"an IRELATIVE relocation", "extern \"C\" void* pick() { return nullptr; }\n"
                                  "asm(\".section .data.rel,\\\"aw\\\"\\n.quad 0\\n.reloc .-8, R_X86_64_IRELATIVE, pick\\n.text\\n\");\n",
       "R_X86_64_IRELATIVE in .data.rel"},
      {".interp", "asm(\".section .interp,\\\"a\\\"\\n.asciz \\\"/tmp/mine\\\"\\n.text\\n\");\n", ".interp"},
  };
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  int index = 0;
  for (const auto& way : ways) {
    CAPTURE(way.name);
    const fs::path student = objects.compile("way" + std::to_string(index++), way.source + "void api_fn() {}\n");
    const PolicyResult result = apply_link_policy(cpu_lab(), {api}, {student});
    INFO(finding_symbols(result));
    CHECK(result.verdict == Verdict::policy_refused);
    CHECK(has_finding(result, way.finding));
  }
}

TEST_CASE("sanitizer runtimes are refused, called or defined: a build could be told apart by them") {
  Objects objects;
  const fs::path api = objects.compile("api", kApiSource);
  const fs::path calls = objects.compile("calls", "extern \"C\" void __tsan_init() __attribute__((weak));\n"
                                                  "void api_fn() { volatile bool checked = __tsan_init != nullptr; (void)checked; }\n");
  CHECK(has_finding(apply_link_policy(cpu_lab(), {api}, {calls}), "__tsan_init"));
  const fs::path defines = objects.compile("defines", "extern \"C\" void __asan_init() {}\nvoid api_fn() {}\n");
  CHECK(has_finding(apply_link_policy(cpu_lab(), {api}, {defines}), "__asan_init"));
}

